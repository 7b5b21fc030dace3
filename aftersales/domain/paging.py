"""Pages of a listing, newest first: the bounds of a page, and the opaque cursor that says where the next one starts.

A cursor is a position, not a handle: it holds the time and id of the last row a page showed, and a fingerprint of
the listing it came from (which tool's list, whose rows), so it cannot be used for another search. Nothing is
stored for it and it never expires; the query is scoped as always, so an edited cursor can only move within the
rows the search may show.

The fingerprint is an HMAC under a server secret (CursorKeys), not a bare hash: cursors reach clients, logs and the
audit, and a bare hash of "email:ann@example.com" would let anyone who guesses an email confirm it.
"""

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from aftersales.clock import as_utc
from aftersales.domain.errors import InvalidArguments

DEFAULT_LIMIT = 10
MAX_LIMIT = 50
CURSOR_PATTERN = r"^[A-Za-z0-9_-]{16,400}$"  # unpadded URL-safe base64, as encode_cursor writes it
VERSION = 2  # 1 carried an unkeyed digest; such cursors now read as not issued here
T = TypeVar("T")


@dataclass(frozen=True)
class Position:
    """The last row a page showed: its time and its id (rows are ordered by both, descending)."""

    at: datetime
    id: str


@dataclass(frozen=True)
class Listing:
    """What a cursor belongs to: one tool's list (`tool`) of one scope ("email:ann@example.com", say)."""

    tool: str
    scope: str

    def fingerprint(self, key: bytes) -> str:
        """A keyed digest of the listing: no scope in clear, and no guessed email can be tested against it."""
        return hmac.new(key, f"{self.tool}\n{self.scope}".encode(), hashlib.sha256).hexdigest()[:16]


@dataclass(frozen=True)
class CursorKeys:
    """The keys of cursor fingerprints: the first signs new cursors, every one is accepted (rotation, replicas)."""

    keys: tuple[bytes, ...]

    @classmethod
    def derive(cls, secrets: Sequence[str]) -> "CursorKeys":
        """One cursor key per server secret, in the same order, derived so no secret is used raw for two purposes."""
        return cls(
            tuple(hmac.new(s.encode(), b"aftersales cursor fingerprint", hashlib.sha256).digest() for s in secrets)
        )


def cut(rows: list[T], limit: int, position: Callable[[T], Position]) -> tuple[list[T], Position | None]:
    """A page from up to `limit + 1` rows: the first `limit`, and the last one's position if another row follows."""
    page = rows[:limit]
    return page, (position(page[-1]) if len(rows) > limit else None)


def encode_cursor(listing: Listing, position: Position, keys: CursorKeys) -> str:
    """The cursor that continues `listing` after `position`, fingerprinted with the first key."""
    fingerprint = listing.fingerprint(keys.keys[0])
    payload = {"v": VERSION, "l": fingerprint, "at": as_utc(position.at).isoformat(), "id": position.id}
    raw = json.dumps(payload, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(listing: Listing, cursor: str, keys: CursorKeys) -> Position:
    """The position a cursor of `listing` marks; a cursor that cannot be read, or is another listing's, is refused.

    Any key of the ring verifies, so a new first key breaks no cursor; one made under a key since dropped reads as
    another search's (its page is lost, and the message says to start again).
    """
    payload = _payload(cursor)
    if payload is None:
        raise InvalidArguments(
            f'cursor "{_short(cursor)}" is not a cursor this server issued.',
            "A cursor is the next_cursor of an earlier page of the same search, passed back unchanged.",
            "Call again without cursor to start from the first page, or pass next_cursor exactly as it was returned.",
        )
    if not any(hmac.compare_digest(payload["l"], listing.fingerprint(key)) for key in keys.keys):
        raise InvalidArguments(
            f'cursor "{_short(cursor)}" belongs to another search.',
            f"A cursor continues only the search that returned it: {listing.tool} with the same customer or order.",
            "Call again with the search that returned this cursor, or without cursor to start from the first page.",
        )
    return Position(as_utc(datetime.fromisoformat(payload["at"])), payload["id"])


def _payload(cursor: str) -> dict[str, Any] | None:
    """The cursor's fields, if it is one this module wrote (any version but the current is unreadable)."""
    try:
        decoded = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if not isinstance(decoded, dict) or decoded.get("v") != VERSION:
            return None
        if not all(isinstance(decoded.get(key), str) for key in ("l", "at", "id")):
            return None
        if datetime.fromisoformat(decoded["at"]).tzinfo is None:
            return None
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    return decoded


def _short(text: str) -> str:
    """A long value cut for a message."""
    return text if len(text) <= 40 else text[:37] + "..."


# What a cursor looks like: one that continues a search by the email of customer C-00001 (seed/README.md), keyed
# with a made-up key, so it shows the form without continuing anything on a real server.
CURSOR_EXAMPLE = encode_cursor(
    Listing("after_sales_find_orders", "email:qiang.guo.1@example.com"),
    Position(datetime(2026, 11, 23, 18, tzinfo=UTC), "O-2026-001423"),
    CursorKeys.derive(["an example key, used by no server"]),
)

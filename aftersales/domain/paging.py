"""Pages of a listing, newest first: the bounds of a page, and the opaque cursor that says where the next one starts.

A cursor is a position, not a handle: it holds the time and id of the last row a page showed, and a fingerprint of
the listing it came from (which tool's list, whose rows), so it cannot be used for another search. Nothing is
stored for it and it never expires; the query is scoped as always, so an edited cursor can only move within the
rows the search may show.
"""

import base64
import binascii
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from aftersales.clock import as_utc
from aftersales.domain.errors import InvalidArguments

DEFAULT_LIMIT = 10
MAX_LIMIT = 50
CURSOR_PATTERN = r"^[A-Za-z0-9_-]{16,400}$"  # unpadded URL-safe base64, as encode_cursor writes it
VERSION = 1
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

    @property
    def fingerprint(self) -> str:
        """A digest of the listing, so a cursor carries neither the tool's scope nor anyone's email in clear."""
        return hashlib.sha256(f"{self.tool}\n{self.scope}".encode()).hexdigest()[:16]


def cut(rows: list[T], limit: int, position: Callable[[T], Position]) -> tuple[list[T], Position | None]:
    """A page from up to `limit + 1` rows: the first `limit`, and the last one's position if another row follows."""
    page = rows[:limit]
    return page, (position(page[-1]) if len(rows) > limit else None)


def encode_cursor(listing: Listing, position: Position) -> str:
    """The cursor that continues `listing` after `position`."""
    payload = {"v": VERSION, "l": listing.fingerprint, "at": as_utc(position.at).isoformat(), "id": position.id}
    raw = json.dumps(payload, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(listing: Listing, cursor: str) -> Position:
    """The position a cursor of `listing` marks; a cursor that cannot be read, or is another listing's, is refused."""
    payload = _payload(cursor)
    if payload is None:
        raise InvalidArguments(
            f'cursor "{_short(cursor)}" is not a cursor this server issued.',
            "A cursor is the next_cursor of an earlier page of the same search, passed back unchanged.",
            "Call again without cursor to start from the first page, or pass next_cursor exactly as it was returned.",
        )
    if payload["l"] != listing.fingerprint:
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


# What a cursor looks like: one that continues a search by the email of customer C-00001 (seed/README.md).
CURSOR_EXAMPLE = encode_cursor(
    Listing("after_sales_find_orders", "email:qiang.guo.1@example.com"),
    Position(datetime(2026, 11, 23, 18, tzinfo=UTC), "O-2026-001423"),
)

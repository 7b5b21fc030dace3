"""Paging cursors, signed whole with the server's keys (itsdangerous): a cursor read back is one this server wrote.

A cursor is `payload.signature`: the payload is unpadded URL-safe base64 of compact JSON holding the listing's
fingerprint (`l`) and the position (`at`, `id`) of the last row a page showed; the signature covers all of it, so
an edited position is refused before anything reads it, and the services only ever see a position this server
wrote. The fingerprint is keyed too, not a bare hash: cursors reach clients, logs and the audit, and a bare hash of
"email:ann@example.com" would let anyone who guesses an email confirm it.
"""

import base64
import binascii
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from itsdangerous import BadSignature, Signer

from aftersales.clock import as_utc
from aftersales.domain.paging import Listing, Position, another_search, not_issued

CURSOR_SALT = "aftersales.paging-cursor.v3"  # .v2 cursors covered only the listing; they now read as not issued
LISTING_SALT = "aftersales.paging-listing.v3"


class SignedCursors:
    """Writes and reads the cursors of every listing with one key ring: the first key signs, every key verifies."""

    def __init__(self, secrets: Sequence[str]) -> None:
        # itsdangerous signs with the *last* key of a list and verifies with all; the ring lists the signer first.
        ring = list(reversed(secrets))
        self._cursors, self._listings = Signer(ring, salt=CURSOR_SALT), Signer(ring, salt=LISTING_SALT)

    def write(self, listing: Listing, position: Position) -> str:
        """The cursor that continues `listing` after `position`."""
        fingerprint = self._listings.get_signature(_listing_text(listing)).decode()
        fields = {"l": fingerprint, "at": as_utc(position.at).isoformat(), "id": position.id}
        return self._cursors.sign(_encode(json.dumps(fields, separators=(",", ":")).encode())).decode()

    def read(self, listing: Listing, cursor: str) -> Position:
        """The position a cursor of `listing` marks; one this server did not write, or another listing's, is refused.

        Any key of the ring verifies, so a new first key breaks no cursor; one made under a key since dropped reads
        as not issued (its page is lost, and the message says to start again).
        """
        fields = self._verified(cursor)
        if fields is None:
            raise not_issued(cursor)
        if not self._listings.verify_signature(_listing_text(listing), fields["l"]):
            raise another_search(cursor, listing)
        return Position(fields["at"], fields["id"])

    def _verified(self, cursor: str) -> dict[str, Any] | None:
        """The fields of a cursor whose signature holds and whose text is exactly as written; None for any other."""
        try:
            payload, signature = cursor.encode("ascii").rsplit(b".", 1)
            # Base64 can spell the same bytes more than one way; only the spelling written here is the cursor.
            if _encode(_decode(payload)) != payload or _encode(_decode(signature)) != signature:
                return None
            fields = json.loads(_decode(self._cursors.unsign(cursor.encode("ascii"))))
            at, row = datetime.fromisoformat(fields["at"]), fields["id"]
            if at.tzinfo is None or not isinstance(row, str) or not isinstance(fields["l"], str):
                return None
            # Defence in depth: whatever was signed, the services get a time in UTC and an id as it was stored.
            return {"l": fields["l"], "at": as_utc(at), "id": row}
        except (BadSignature, binascii.Error, ValueError, TypeError, KeyError, OverflowError, UnicodeError):
            return None


def _listing_text(listing: Listing) -> str:
    """What a listing's fingerprint signs: the tool and the scope, which no cursor spells in clear."""
    return f"{listing.tool}\n{listing.scope}"


def _encode(raw: bytes) -> bytes:
    """Unpadded URL-safe base64, the alphabet of CURSOR_PATTERN."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=")


def _decode(text: bytes) -> bytes:
    """The bytes of unpadded URL-safe base64; binascii.Error when it is not that."""
    return base64.urlsafe_b64decode(text + b"=" * (-len(text) % 4))


# What a cursor looks like: one that continues a search by the email of customer C-00001 (seed/README.md), signed
# with a made-up key, so it shows the form without continuing anything on a real server.
CURSOR_EXAMPLE = SignedCursors(["an example key, used by no server"]).write(
    Listing("after_sales_find_orders", "email:qiang.guo.1@example.com"),
    Position(datetime(2026, 11, 23, 18, tzinfo=UTC), "O-2026-001423"),
)

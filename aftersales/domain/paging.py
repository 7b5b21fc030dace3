"""Pages of a listing, newest first: the bounds of a page, the position a page ends at, and what a cursor refuses.

A cursor is a position, not a handle: it holds the time and id of the last row a page showed, and a fingerprint of
the listing it came from (which tool's list, whose rows), so it cannot be used for another search. Nothing is
stored for it and it never expires. Cursors are signed whole where the keys live (`security/cursors.py`), so the
services get only a position this server wrote; this module says what a refused cursor tells the caller.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from aftersales.domain.errors import InvalidArguments

DEFAULT_LIMIT = 10
MAX_LIMIT = 50
CURSOR_LONGEST = 400  # characters: room for any position this server writes, and a bound on what it reads
CURSOR_PATTERN = rf"^[A-Za-z0-9_.-]{{16,{CURSOR_LONGEST}}}$"  # payload.signature, each unpadded URL-safe base64
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


def cut(rows: list[T], limit: int, position: Callable[[T], Position]) -> tuple[list[T], Position | None]:
    """A page from up to `limit + 1` rows: the first `limit`, and the last one's position if another row follows."""
    page = rows[:limit]
    return page, (position(page[-1]) if len(rows) > limit else None)


def not_issued(cursor: str) -> InvalidArguments:
    """The refusal of a cursor this server did not write, or one changed since (even by one character)."""
    return InvalidArguments(
        f'cursor "{_short(cursor)}" is not a cursor this server issued, or it was changed.',
        "A cursor is the next_cursor of an earlier page of the same search, passed back unchanged: it is signed "
        "whole, so an edited one is refused.",
        "Call again without cursor to start from the first page, or pass next_cursor exactly as it was returned.",
    )


def another_search(cursor: str, listing: Listing) -> InvalidArguments:
    """The refusal of a cursor this server wrote for another search."""
    return InvalidArguments(
        f'cursor "{_short(cursor)}" belongs to another search.',
        f"A cursor continues only the search that returned it: {listing.tool} with the same customer or order.",
        "Call again with the search that returned this cursor, or without cursor to start from the first page.",
    )


def _short(text: str) -> str:
    """A long value cut for a message."""
    return text if len(text) <= 40 else text[:37] + "..."

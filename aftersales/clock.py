"""The one clock: every timestamp in the service comes from `now()`.

A context may supply its own source of time (a world's frozen or shifted clock, set per request like the caller);
without one, `now()` is the wall clock, which freezegun freezes in tests.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime

_source: ContextVar[Callable[[], datetime] | None] = ContextVar("aftersales_clock_source", default=None)


def now() -> datetime:
    """Return the current time, timezone-aware, in UTC: the context's clock, else the wall clock."""
    source = _source.get()
    return wall() if source is None else source()


def wall() -> datetime:
    """The wall clock, whatever clock the context has chosen."""
    return datetime.now(UTC)


@contextmanager
def using(source: Callable[[], datetime]) -> Iterator[None]:
    """Make `now()` read `source` in the enclosed code (and in tasks and threads started with its context)."""
    token = _source.set(source)
    try:
        yield
    finally:
        _source.reset(token)


def as_utc(value: datetime) -> datetime:
    """Return `value` as aware UTC; naive values (SQLite round-trips) are taken as UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def iso(value: datetime) -> str:
    """Format a time as ISO 8601 UTC with a trailing Z, to the second."""
    return as_utc(value).strftime("%Y-%m-%dT%H:%M:%SZ")

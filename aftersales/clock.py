"""The one clock: every timestamp in the service comes from `now()`.

A context may supply its own source of time (a world's frozen or shifted clock, set per request like the caller);
without one, `now()` is the wall clock, which freezegun freezes in tests. A context's clock may name a scope, an
opaque label (a world's id) that keeps throttles measured on one clock apart from those measured on another.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime, timedelta

_source: ContextVar[Callable[[], datetime] | None] = ContextVar("aftersales_clock_source", default=None)
_scope: ContextVar[str | None] = ContextVar("aftersales_clock_scope", default=None)


def now() -> datetime:
    """Return the current time, timezone-aware, in UTC: the context's clock, else the wall clock."""
    source = _source.get()
    return wall() if source is None else source()


def wall() -> datetime:
    """The wall clock, whatever clock the context has chosen."""
    return datetime.now(UTC)


def scope() -> str | None:
    """The scope of the context's clock (None for the wall clock)."""
    return _scope.get()


@contextmanager
def using(source: Callable[[], datetime], scope: str | None = None) -> Iterator[None]:
    """Make `now()` read `source` in the enclosed code (and in tasks and threads started with its context)."""
    token, scope_token = _source.set(source), _scope.set(scope)
    try:
        yield
    finally:
        _scope.reset(scope_token)
        _source.reset(token)


def move_on(by: timedelta) -> None:
    """From here to the end of the running context, `now()` reads the context's clock moved on by `by`.

    For a scripted person who stepped away in the middle of a call (docs/tasks.md): the world's stored clock moves
    too, but the call in progress holds the clock it started with, and must see the time that passed.
    """
    earlier = _source.get() or wall
    _source.set(lambda: earlier() + by)


def as_utc(value: datetime) -> datetime:
    """Return `value` as aware UTC; naive values (SQLite round-trips) are taken as UTC."""
    if value.tzinfo is UTC:  # the usual case, on every time a read formats: no new object
        return value
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def iso(value: datetime) -> str:
    """Format a time as ISO 8601 UTC with a trailing Z, to the second."""
    return as_utc(value).strftime("%Y-%m-%dT%H:%M:%SZ")

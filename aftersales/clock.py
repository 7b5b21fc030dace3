"""The one clock: every timestamp in the service comes from `now()`."""

from datetime import UTC, datetime


def now() -> datetime:
    """Return the current time, timezone-aware, in UTC."""
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """Return `value` as aware UTC; naive values (SQLite round-trips) are taken as UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def iso(value: datetime) -> str:
    """Format a time as ISO 8601 UTC with a trailing Z, to the second."""
    return as_utc(value).strftime("%Y-%m-%dT%H:%M:%SZ")

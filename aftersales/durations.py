"""Durations in settings and flags: "90s", "30m", "12h", "30d", or plain seconds."""

import re
from datetime import timedelta

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_PATTERN = re.compile(r"^\s*(\d+)\s*([smhd]?)\s*$")


def parse_duration(value: str | int | float | timedelta) -> timedelta:
    """Parse a duration; raise ValueError with the accepted forms when it is not one."""
    if isinstance(value, timedelta):
        return value
    if isinstance(value, int | float):
        return _seconds(value, value)
    match = _PATTERN.match(value)
    if not match:
        raise ValueError(f"{value!r} is not a duration; use a number with s, m, h or d, for example 30m or 30d")
    number, unit = match.groups()
    return _seconds(int(number) * _UNITS[unit or "s"], value)


def _seconds(seconds: int | float, given: object) -> timedelta:
    try:
        return timedelta(seconds=seconds)
    except (OverflowError, ValueError):  # past timedelta's 999,999,999 days, or not a number at all (nan)
        raise ValueError(f"{given!r} is too long (or not a number) to be a duration; for example 30m or 30d") from None


_WORDS = (("day", 86400), ("hour", 3600), ("minute", 60))


def describe_duration(value: timedelta) -> str:
    """A lifetime in words: the largest unit that states it exactly ("30 minutes", "45 seconds", "12 hours")."""
    seconds = int(value.total_seconds())
    for word, size in _WORDS:
        if seconds >= size and seconds % size == 0:
            count = seconds // size
            return f"{count} {word}{'s' if count != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"

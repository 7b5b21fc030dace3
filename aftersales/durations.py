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
        return timedelta(seconds=value)
    match = _PATTERN.match(value)
    if not match:
        raise ValueError(f"{value!r} is not a duration; use a number with s, m, h or d, for example 30m or 30d")
    number, unit = match.groups()
    return timedelta(seconds=int(number) * _UNITS[unit or "s"])

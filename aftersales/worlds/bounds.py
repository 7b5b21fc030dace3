"""The ranges a world's inputs fall in: instants, durations and seeds the clock, the databases and the rules handle.

The instants are years 2000 to 2999: a dataset reaches a few years back from a world's day, and the rules add
months or years ahead (warranties, quote and key lifetimes) and write four-digit years into ticket numbers, all far
inside what Python, SQLite and PostgreSQL compute with. A seed is stored in a signed 64-bit column.
"""

from datetime import UTC, date, datetime, timedelta

from aftersales.clock import iso
from aftersales.durations import describe_duration
from aftersales.worlds.model import iso_exact
from aftersales.worlds.world_errors import WorldRequestError

EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
LATEST = datetime(2999, 12, 31, 23, 59, 59, tzinfo=UTC)
LONGEST = timedelta(days=3650)  # a token's lifetime, one move of a clock
LARGEST_SEED = 2**63 - 1
INSTANTS = f"from {iso(EARLIEST)} to {iso(LATEST)}"
DURATIONS = f"from 1 second to {describe_duration(LONGEST)}"
SEEDS = f"from 0 to {LARGEST_SEED} (2^63 - 1)"


def instant(name: str, moment: datetime) -> datetime:
    """`moment`, or a WorldRequestError naming `name` (`"at"`, `--at`) and the range."""
    if not EARLIEST <= moment <= LATEST:
        raise WorldRequestError(
            f"{name} {iso_exact(moment)} is outside the times a world's clock shows.",
            f"A world's clock shows a time {INSTANTS}.",
            f"Send {name} inside that range, for example 2026-12-01T09:00:00Z.",
        )
    return moment


def day(name: str, value: date) -> date:
    """`value`, or a WorldRequestError naming `name` and the range of days."""
    if not EARLIEST.date() <= value <= LATEST.date():
        raise WorldRequestError(
            f"{name} {value.isoformat()} is outside the days a world's data can be anchored to.",
            f"A day is {EARLIEST.date().isoformat()} to {LATEST.date().isoformat()}.",
            f"Send {name} inside that range, for example 2026-11-30.",
        )
    return value


def duration(name: str, value: timedelta, given: object) -> timedelta:
    """`value` (read from `given`), or a WorldRequestError naming `name` and the range of durations."""
    if not timedelta(seconds=1) <= value <= LONGEST:
        raise WorldRequestError(
            f"{name} {given!r} is not a duration this accepts.",
            f"{name} takes a duration {DURATIONS}.",
            f'Send {name} inside that range, for example "31m", "12h" or "8d".',
        )
    return value


def seed(name: str, value: int) -> int:
    """`value`, or a WorldRequestError naming `name` and the range of seeds."""
    if not 0 <= value <= LARGEST_SEED:
        raise WorldRequestError(
            f"{name} {value} is outside the seeds of deterministic ids.",
            f"A seed is a whole number {SEEDS}.",
            f"Send {name} inside that range, for example 7.",
        )
    return value


def moved(name: str, moment: datetime) -> datetime:
    """The time a clock would show after a move, or a WorldRequestError saying the move takes it out of range."""
    if not EARLIEST <= moment <= LATEST:
        raise WorldRequestError(
            f"{name} would put the world's clock at {iso_exact(moment)}.",
            f"A world's clock shows a time {INSTANTS}.",
            'Move it by less, or set it to a time inside that range with {"set": ISO-8601} (world clock --set).',
        )
    return moment

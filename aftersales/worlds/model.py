"""What a world is, without I/O: its clock, where its data lives, and the registry's record of it."""

import hashlib
import json
from dataclasses import dataclass, replace
from datetime import UTC, datetime, time, timedelta
from typing import Any

from aftersales.clock import iso
from aftersales.domain.callers import ALL_SCOPES
from aftersales.worlds.world_errors import WorldRequestError

CLOCK_MODES = ("real", "frozen", "offset")
SOURCE_KINDS = ("baseline", "dataset", "database", "world")
PLACE_KINDS = ("world", "origin", "template", "scratch")
STATES = ("creating", "ready")
ADMIN_SCOPE = "worlds:admin"  # what a token needs for the admin API (apart from the tool scopes)
TOKEN_SCOPES = (*ALL_SCOPES, ADMIN_SCOPE)  # every scope a token may hold


@dataclass(frozen=True)
class WorldClock:
    """A world's time: the wall clock, a frozen instant, or the wall clock shifted by an offset."""

    mode: str
    at: datetime | None = None  # frozen: the instant the world's clock shows
    offset: timedelta = timedelta(0)  # real and offset: added to the wall clock

    @classmethod
    def start(cls, mode: str, at: datetime | None, wall: datetime) -> "WorldClock":
        """The clock a new world starts with: `real`, `frozen` at `at` (default now), or `offset` so now = `at`."""
        if mode == "real":
            if at is not None:
                raise WorldRequestError(
                    f"--at {iso(at)} was given with --clock real.",
                    "A real clock shows the wall clock; only frozen and offset clocks start at a chosen time.",
                    "Drop --at, or choose --clock frozen or --clock offset.",
                )
            return cls("real")
        if mode == "frozen":
            return cls("frozen", at=at or wall.replace(microsecond=0))
        if mode == "offset":
            if at is None:
                raise WorldRequestError(
                    "--clock offset was given without --at.",
                    "An offset clock runs like the wall clock from a chosen start time.",
                    "Add --at with the start time, for example --at 2026-12-01T09:00:00Z.",
                )
            return cls("offset", offset=at - wall)
        raise WorldRequestError(
            f"--clock {mode!r} is not a clock.", f"Choose one of {', '.join(CLOCK_MODES)}.", "Correct --clock."
        )

    def now(self, wall: datetime) -> datetime:
        """The world's time when the wall clock shows `wall`."""
        return self.at if self.mode == "frozen" and self.at is not None else wall + self.offset

    def advanced(self, by: timedelta) -> "WorldClock":
        """The clock moved forward by `by`; a real clock becomes an offset one."""
        if self.mode == "frozen" and self.at is not None:
            return replace(self, at=self.at + by)
        return WorldClock("offset", offset=self.offset + by)

    def set_to(self, moment: datetime, wall: datetime) -> "WorldClock":
        """The clock showing `moment` now; a real clock becomes an offset one."""
        if self.mode == "frozen":
            return replace(self, at=moment)
        return WorldClock("offset", offset=moment - wall)

    def as_dict(self, wall: datetime) -> dict[str, Any]:
        """What `world list --json` and the admin API show."""
        shown: dict[str, Any] = {"mode": self.mode, "now": iso_exact(self.now(wall))}
        if self.mode == "offset":
            shown["offset_seconds"] = self.offset.total_seconds()
        return shown


@dataclass(frozen=True, order=True)
class Place:
    """Where a database lives, by role and name; the backend maps it to a file or a PostgreSQL database."""

    kind: str  # world | origin (a fork's state at fork time) | template | scratch (being built or read)
    name: str

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}"

    @classmethod
    def parse(cls, text: str) -> "Place":
        """Read a place back from the registry."""
        kind, _, name = text.partition(":")
        if kind not in PLACE_KINDS or not name:
            raise ValueError(f"{text!r} is not a place")
        return cls(kind, name)


@dataclass(frozen=True)
class World:
    """One world as the registry holds it."""

    id: str
    state: str
    created_at: datetime
    last_used_at: datetime
    source_kind: str
    source: str
    location: Place
    origin: Place  # what reset copies back: the shared template, or a fork's own copy of its source
    origin_owned: bool
    anchor_day: datetime  # midnight UTC of the clock at creation: relative dates and snapshot times start here
    clock: WorldClock
    start_mode: str
    start_at: datetime  # the world's time at creation, where reset puts its clock back
    deterministic: bool = False
    seed: int = 0
    id_counter: int = 0
    id_counter_start: int = 0
    incarnation: str = ""  # a nonce of this creation; its tokens carry it ("" for worlds made before it existed)
    # The canonical JSON of the tool description set it serves, every text filled in (mcp/descriptions.py); None
    # for the server's own texts. Stored whole, so every replica serves the same texts and its hash names them.
    tool_descriptions: str | None = None
    # The end of its lease (wall time): past it the world is gone, dropped at the next housekeeping. None: no lease.
    expires_at: datetime | None = None

    def expired(self, wall: datetime) -> bool:
        """Its lease has run out."""
        return self.expires_at is not None and wall >= self.expires_at

    def reset_clock(self, wall: datetime) -> WorldClock:
        """The clock as it was at creation: frozen at the start, offset so that now is the start again, or real."""
        if self.start_mode == "real":
            return WorldClock("real")
        return WorldClock.start(self.start_mode, self.start_at, wall)

    def as_dict(self, wall: datetime, size: int | None = None) -> dict[str, Any]:
        """The world as JSON for the CLI and the admin API."""
        return {
            "id": self.id,
            "state": self.state,
            "created_at": iso(self.created_at),
            "last_used_at": iso(self.last_used_at),
            "source": {"kind": self.source_kind, "name": self.source},
            "clock": self.clock.as_dict(wall),
            "started_at": iso_exact(self.start_at),
            "anchor_day": iso(self.anchor_day),
            "deterministic": self.deterministic,
            "seed": self.seed if self.deterministic else None,
            "size_bytes": size,
            "tool_descriptions": None if self.tool_descriptions is None else described_as(self.tool_descriptions),
            "expires_at": None if self.expires_at is None else iso(self.expires_at),
        }


def described_as(canonical: str) -> dict[str, str]:
    """The name of a stored tool description set, and the sha256 of its texts alone (renaming changes no hash)."""
    data = json.loads(canonical)
    texts = json.dumps(data["tools"], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return {"name": data["name"], "sha256": hashlib.sha256(texts.encode()).hexdigest()}


def midnight(moment: datetime) -> datetime:
    """00:00 UTC of the day `moment` falls on."""
    return datetime.combine(moment.astimezone(UTC).date(), time(0), UTC)


def iso_exact(moment: datetime) -> str:
    """ISO 8601 UTC with a Z, with microseconds only when there are any."""
    text = moment.astimezone(UTC).isoformat()
    return text.replace("+00:00", "Z")


def parse_instant(text: str) -> datetime:
    """An ISO 8601 time for --at and --set; one without an offset is taken as UTC."""
    try:
        moment = datetime.fromisoformat(text.strip())
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except (ValueError, OverflowError):  # OverflowError: an offset that moves year 1 or 9999 out of the calendar
        raise WorldRequestError(
            f"{text!r} is not an ISO 8601 time.",
            "Times are given like 2026-12-01T09:00:00Z (UTC) or with an offset such as +08:00.",
            "Correct the time and run the command again.",
        ) from None

"""The worlds service: create, fork, reset, drop, list, clocks and tokens. The CLI and the admin API call it.

Registry times (created, last used) are wall-clock times; a world's own clock only drives what runs inside it.
"""

import re
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.pool import NullPool

from aftersales import clock
from aftersales.durations import describe_duration
from aftersales.security import tokens
from aftersales.settings import Settings
from aftersales.storage.database import make_engine
from aftersales.storage.runner import here
from aftersales.storage.unit_of_work import SqlUnitOfWork
from aftersales.worlds import bounds, context, templates
from aftersales.worlds.engines import WorldEngines
from aftersales.worlds.model import Place, World, WorldClock, iso_exact, midnight
from aftersales.worlds.storage import trace_table
from aftersales.worlds.storage.places import places_for
from aftersales.worlds.storage.registry import WorldRegistry
from aftersales.worlds.trace import Draft, turn
from aftersales.worlds.world_errors import UnknownWorld, WorldLimitReached, WorldRequestError

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,23}$")
STALE_CREATION = timedelta(minutes=10)  # a creation unfinished this long was interrupted; housekeeping drops it
TOUCH_EVERY = timedelta(minutes=1)  # last_used_at is written at most this often per world, not on every call


class Worlds:
    """Every world operation, over the registry in the control database and the places worlds live in."""

    def __init__(self, settings: Settings, control: Engine, caller_keys: list[str] | None = None) -> None:
        self.settings = settings
        self.registry = WorldRegistry(control)
        self.places = places_for(settings, control.url.render_as_string(hide_password=False))
        self.engines = WorldEngines(self.places, settings)
        self._keys = caller_keys

    def create(
        self,
        source: str = "baseline",
        clock_mode: str | None = None,
        at: datetime | None = None,
        deterministic: bool = False,
        seed: int | None = None,
        world_id: str | None = None,
        dataset_day: date | None = None,
        operator: bool = False,
        tool_descriptions: str | None = None,
        lease: timedelta | None = None,
    ) -> World:
        """A new world from the baseline or a dataset file, its dates anchored to its clock.

        `operator` is the command line on the server's host: dataset files anywhere and generated databases too;
        otherwise (the admin API) dataset files only in AFTERSALES_WORLDS_DATASETS_DIR. Never the serving database.
        `tool_descriptions` is the canonical text of a checked, completed description set the world serves.
        `lease`: the world is gone that long after now (wall time), used or not; None: it lives until dropped or idle.
        """
        wall = clock.wall()
        _check_start(at, seed)
        expires = _lease_end(lease, wall)
        if dataset_day is not None:
            bounds.day("--dataset-day", dataset_day)
        mode = clock_mode or ("frozen" if at else "real")
        world_clock = WorldClock.start(mode, at, wall)
        resolved = templates.resolve(source, self.settings.seed_dir, self._allowed(operator), dataset_day)
        self._make_room()
        start = world_clock.now(wall)
        template = templates.ensure(self.places, resolved, start)
        name = self._new_id(world_id)
        world = World(
            id=name,
            state="creating",
            created_at=wall,
            last_used_at=wall,
            source_kind=resolved.kind,
            source=resolved.name,
            location=Place("world", name),
            origin=template,
            origin_owned=False,
            anchor_day=midnight(start),
            clock=world_clock,
            start_mode=mode,
            start_at=start,
            deterministic=deterministic or seed is not None,
            seed=seed or 0,
            incarnation=secrets.token_hex(8),
            tool_descriptions=tool_descriptions,
            expires_at=expires,
        )
        return self._materialise(world, lambda: self.places.copy(template, world.location))

    def fork(
        self,
        source_id: str,
        clock_mode: str | None = None,
        at: datetime | None = None,
        deterministic: bool = False,
        seed: int | None = None,
        world_id: str | None = None,
        lease: timedelta | None = None,
    ) -> World:
        """A copy of another world's current state, with its own clock (the source's unless one is given).

        `lease` as for `create`: a fork has its own (none unless given), whatever its source's.
        """
        wall = clock.wall()
        _check_start(at, seed)
        expires = _lease_end(lease, wall)
        source = self.get(source_id)
        mode = clock_mode or ("frozen" if at else None)
        world_clock = WorldClock.start(mode, at, wall) if mode else source.clock
        self._make_room()
        name = self._new_id(world_id)
        world = World(
            id=name,
            state="creating",
            created_at=wall,
            last_used_at=wall,
            source_kind="world",
            source=source.id,
            location=Place("world", name),
            origin=Place("origin", name),
            origin_owned=True,
            anchor_day=source.anchor_day,  # the data is the source's, dates and all
            clock=world_clock,
            start_mode=world_clock.mode,
            start_at=world_clock.now(wall),
            deterministic=deterministic or seed is not None or source.deterministic,
            # Continuing the source's counter keeps new ids clear of the handles the copy already holds.
            seed=seed if seed is not None else source.seed,
            id_counter=source.id_counter,
            id_counter_start=source.id_counter,
            incarnation=secrets.token_hex(8),
            tool_descriptions=source.tool_descriptions,  # a copy of the world serves what it served
            expires_at=expires,
        )

        def copy() -> None:
            self.engines.close(source.location)
            self.places.copy(source.location, world.origin)
            self._clear_trace(world.origin)  # the fork's trace starts empty, and reset empties it again
            self.places.seal(world.origin)
            self.places.copy(world.origin, world.location)

        forked = self._materialise(world, copy)
        self.registry.update(source.id, last_used_at=wall)
        return forked

    def reset(self, world_id: str) -> World:
        """Put a world back as it was created: its data, its clock and its id counter."""
        world, wall = self.get(world_id), clock.wall()
        self.engines.close(world.location)
        self.places.restore(world.origin, world.location)
        reset = self.registry.update(
            world.id, clock=world.reset_clock(wall), id_counter=world.id_counter_start, last_used_at=wall
        )
        if reset is None:
            raise UnknownWorld(world_id)
        return reset

    def drop(self, world_id: str) -> None:
        """Unregister a world and remove its database (and a fork's copy of its source)."""
        world = self.registry.get(world_id)
        if world is None or not self.registry.remove(world_id):
            raise UnknownWorld(world_id)
        self.engines.close(world.location)
        self.places.drop(world.location)
        if world.origin_owned:
            self.places.drop(world.origin)

    def get(self, world_id: str) -> World:
        """A live world by id (one whose lease ended is gone, dropped or not yet)."""
        world = self.registry.get(world_id)
        if world is None or world.state != "ready" or world.expired(clock.wall()):
            raise UnknownWorld(world_id)
        return world

    def lookup(self, world_id: str) -> World:
        """A live world by id, marked as used (a request is about to run in it)."""
        world = self.get(world_id)
        self._touch(world)
        return world

    def all(self) -> list[tuple[World, int | None]]:
        """Every world with its size on disk, after dropping those unused too long or past their lease."""
        self.expire()
        worlds = self.registry.all()
        sizes = self.places.sizes([world.location for world in worlds])
        return [(world, sizes.get(world.location)) for world in worlds]

    def size(self, world: World) -> int | None:
        """Bytes a world's database takes on disk."""
        return self.places.sizes([world.location]).get(world.location)

    def advance(self, world_id: str, by: timedelta) -> World:
        """Move a world's clock forward (by at most bounds.LONGEST, and never past bounds.LATEST)."""
        bounds.duration("--advance", by, describe_duration(by))
        wall, name = clock.wall(), f"advance {describe_duration(by)}"
        return self._move_clock(world_id, lambda current: _shown(current.advanced(by), wall, name))

    def set_clock(self, world_id: str, to: datetime) -> World:
        """Make a world's clock show `to` now (a frozen clock stays frozen there)."""
        wall = clock.wall()
        bounds.instant("--set", to)
        return self._move_clock(world_id, lambda current: current.set_to(to, wall))

    def token(self, world_id: str, caller: str, scopes: list[str], ttl: timedelta) -> str:
        """A caller token bound to the world (arguments already checked by the entrypoint)."""
        if self._keys is None:
            raise RuntimeError("this Worlds service was made without caller-token keys")
        world = self.get(world_id)
        self._touch(world)
        return tokens.issue(self._keys, caller, scopes, ttl, clock.wall(), world=world.id, made=world.incarnation)

    @contextmanager
    def entered(self, world_id: str) -> Iterator[World]:
        """Run the enclosed code on the world's clock and id sequence (the web app does this around each request)."""
        with context.entered(self.lookup(world_id), self.registry.next_counter) as world:
            yield world

    def trace(self, world_id: str) -> list[dict[str, Any]]:
        """Every entry of the world's trace, in order (aftersales-trace/1)."""
        return trace_table.entries(self.engines.engine(self.get(world_id).location))

    def append_trace(self, world: World, draft: Draft) -> dict[str, Any]:
        """Write one call's trace entry to the world's database, now; return it numbered."""
        return trace_table.append(here(self.engines.engine(world.location)), draft, clock.wall())

    def append_turn(self, world_id: str, speaker: str, text: str, **facts: Any) -> dict[str, Any]:
        """Write one conversation turn to the world's trace, stamped with the world's clock; return it numbered."""
        world, wall = self.get(world_id), clock.wall()
        entry = turn(world.id, iso_exact(world.clock.now(wall)), iso_exact(wall), speaker, text, **facts)
        return trace_table.append_turn(here(self.engines.engine(world.location)), entry, wall)

    def unit_of_work(self, world_id: str, write: bool = False) -> SqlUnitOfWork:
        """A unit of work on the world's database."""
        return SqlUnitOfWork(self.engines.sessions(self.get(world_id).location), write=write)

    def expire(self) -> list[str]:
        """Drop worlds unused for AFTERSALES_WORLDS_IDLE_TTL or past their lease, and creations that never finished."""
        wall = clock.wall()
        dropped = []
        for world in self.registry.expired(wall - self.settings.worlds_idle_ttl, wall - STALE_CREATION, wall):
            try:
                self.drop(world.id)
            except UnknownWorld:  # another process dropped it first
                continue
            dropped.append(world.id)
        self.engines.sweep()
        return dropped

    def prune_templates(self) -> list[Place]:
        """Remove templates no world resets from; they are built again when next needed."""
        used = self.registry.origins()
        unused = [template for template in self.places.templates() if str(template) not in used]
        for template in unused:
            self.places.drop(template)
        return unused

    def close(self) -> None:
        """Close every connection the service opened."""
        self.engines.close_all()
        self.places.close()

    def _materialise(self, world: World, copy: Callable[[], None]) -> World:
        """Register the world (claiming its id), make its database, then mark it ready; undo all on failure."""
        self.registry.add(world)
        try:
            copy()
        except BaseException:
            self.registry.remove(world.id)
            self.places.drop(world.location)
            if world.origin_owned:
                self.places.drop(world.origin)
            raise
        ready = self.registry.update(world.id, state="ready")
        assert ready is not None
        return ready

    def _allowed(self, operator: bool) -> templates.Allowed:
        serving = self.registry.engine.url.render_as_string(hide_password=False)
        if operator:
            return templates.Allowed(serving, datasets=None, databases=True)
        return templates.Allowed(serving, datasets=self.settings.worlds_datasets, databases=False, name='"from"')

    def _clear_trace(self, place: Place) -> None:
        engine = make_engine(self.places.url(place), wal=False, poolclass=NullPool)  # a fresh copy: keep its journal
        try:
            trace_table.clear(engine)
        finally:
            engine.dispose()

    def _make_room(self) -> None:
        self.expire()
        live = self.registry.count()
        if live >= self.settings.worlds_max:
            raise WorldLimitReached(
                f"There are already {live} worlds.",
                f"At most {self.settings.worlds_max} worlds live at once (AFTERSALES_WORLDS_MAX); worlds unused for "
                f"{self.settings.worlds_idle_ttl}, and those past their lease, are dropped on their own.",
                "Drop worlds you no longer need (aftersales world drop ID), give the worlds a harness makes a lease "
                '("lease" when creating them), or raise AFTERSALES_WORLDS_MAX.',
            )

    def _new_id(self, requested: str | None) -> str:
        if requested is None:
            return f"w-{secrets.token_hex(4)}"
        if not ID_PATTERN.match(requested):
            raise WorldRequestError(
                f"--id {requested!r} is not a world id.",
                "A world id is 1-24 lowercase letters, digits and hyphens, starting with a letter or digit.",
                "Choose another id, or leave --id out for a generated one.",
            )
        return requested

    def _move_clock(self, world_id: str, change: Callable[[WorldClock], WorldClock]) -> World:
        self.get(world_id)
        moved = self.registry.move_clock(world_id, change)
        if moved is None:
            raise UnknownWorld(world_id)
        self._touch(moved)
        return moved

    def _touch(self, world: World) -> None:
        wall = clock.wall()
        if wall - world.last_used_at >= TOUCH_EVERY:
            self.registry.update(world.id, last_used_at=wall)


def _lease_end(lease: timedelta | None, wall: datetime) -> datetime | None:
    """When a lease taken now ends (a lease from 1 second to 3650 days; the admin API checks it first)."""
    if lease is None:
        return None
    return wall + bounds.duration("--lease", lease, describe_duration(lease))


def _check_start(at: datetime | None, seed: int | None) -> None:
    """A new world's start time and seed inside their ranges (the admin API checks them first, in its own words)."""
    if at is not None:
        bounds.instant("--at", at)
    if seed is not None:
        bounds.seed("--seed", seed)


def _shown(moved: WorldClock, wall: datetime, name: str) -> WorldClock:
    """`moved`, when the time it shows now is inside the range a world's clock may show."""
    bounds.moved(name, moved.now(wall))
    return moved

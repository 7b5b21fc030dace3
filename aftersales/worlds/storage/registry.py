"""The repository of the `worlds` table (worlds/storage/tables.py) in the control database; its SQL lives here only."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from aftersales.storage.database import WRITE
from aftersales.storage.runner import here
from aftersales.worlds.model import Place, World, WorldClock
from aftersales.worlds.storage.tables import WORLDS
from aftersales.worlds.world_errors import UnknownWorld, WorldRequestError


def _microseconds(value: timedelta) -> int:
    return (value.days * 86400 + value.seconds) * 1_000_000 + value.microseconds


def _clock_values(clock: WorldClock) -> dict[str, Any]:
    return {"clock_mode": clock.mode, "clock_at": clock.at, "clock_offset_us": _microseconds(clock.offset)}


def _row(world: World) -> dict[str, Any]:
    values = {
        name: getattr(world, name)
        for name in ("id", "state", "created_at", "last_used_at", "source_kind", "source", "origin_owned")
    }
    values |= {name: getattr(world, name) for name in ("anchor_day", "start_mode", "start_at", "deterministic")}
    values |= {"seed": world.seed, "id_counter": world.id_counter, "id_counter_start": world.id_counter_start}
    values["incarnation"] = world.incarnation
    values["tool_descriptions"] = world.tool_descriptions
    values["expires_at"] = world.expires_at
    return values | {"location": str(world.location), "origin": str(world.origin)} | _clock_values(world.clock)


def _world(row: Any) -> World:
    return World(
        id=row.id,
        state=row.state,
        created_at=row.created_at,
        last_used_at=row.last_used_at,
        source_kind=row.source_kind,
        source=row.source,
        location=Place.parse(row.location),
        origin=Place.parse(row.origin),
        origin_owned=bool(row.origin_owned),
        anchor_day=row.anchor_day,
        clock=WorldClock(row.clock_mode, row.clock_at, timedelta(microseconds=row.clock_offset_us)),
        start_mode=row.start_mode,
        start_at=row.start_at,
        deterministic=bool(row.deterministic),
        seed=int(row.seed),
        id_counter=int(row.id_counter),
        id_counter_start=int(row.id_counter_start),
        incarnation=row.incarnation,
        tool_descriptions=row.tool_descriptions,
        expires_at=row.expires_at,
    )


class WorldRegistry:
    """Every query on the `worlds` table, each in its own short transaction on the control database."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    @property
    def engine(self) -> Engine:
        """The control database's engine, or on the event loop its asyncpg twin (storage.runner)."""
        return here(self._engine)

    @contextmanager
    def _writing(self) -> Iterator[Connection]:
        # On SQLite this begins with BEGIN IMMEDIATE, so a read-modify-write never meets a stale snapshot.
        with self.engine.connect() as connection:
            connection.execution_options(**{WRITE: True})
            with connection.begin():
                yield connection

    def add(self, world: World) -> None:
        """Register a world; a taken id is refused."""
        try:
            with self._writing() as connection:
                connection.execute(insert(WORLDS).values(_row(world)))
        except IntegrityError:
            raise WorldRequestError(
                f'A world named "{world.id}" already exists.',
                "World ids are unique.",
                "Choose another --id, or drop the existing world first.",
            ) from None

    def get(self, world_id: str) -> World | None:
        """The world by id, or None."""
        with self.engine.connect() as connection:
            row = connection.execute(select(WORLDS).where(WORLDS.c.id == world_id)).first()
        return _world(row) if row is not None else None

    def all(self) -> list[World]:
        """Every registered world, oldest first."""
        with self.engine.connect() as connection:
            rows = connection.execute(select(WORLDS).order_by(WORLDS.c.created_at, WORLDS.c.id)).all()
        return [_world(row) for row in rows]

    def count(self) -> int:
        """How many worlds are registered (being created or ready)."""
        with self.engine.connect() as connection:
            return int(connection.scalar(select(func.count()).select_from(WORLDS)) or 0)

    def expired(self, cutoff: datetime, stale_before: datetime, now: datetime) -> list[World]:
        """Worlds last used before `cutoff`, whose lease ended by `now`, and creations unfinished by `stale_before`."""
        stale = (WORLDS.c.state == "creating") & (WORLDS.c.created_at < stale_before)
        leased = WORLDS.c.expires_at <= now
        with self.engine.connect() as connection:
            rows = connection.execute(select(WORLDS).where(or_(WORLDS.c.last_used_at < cutoff, leased, stale))).all()
        return [_world(row) for row in rows]

    def update(self, world_id: str, clock: WorldClock | None = None, **values: Any) -> World | None:
        """Change columns of one world (its clock as a whole); return it as it now is, or None when it is gone."""
        changes = values | (_clock_values(clock) if clock is not None else {})
        with self._writing() as connection:
            result = connection.execute(update(WORLDS).where(WORLDS.c.id == world_id).values(changes))
            if result.rowcount == 0:
                return None
            row = connection.execute(select(WORLDS).where(WORLDS.c.id == world_id)).one()
        return _world(row)

    def move_clock(self, world_id: str, change: Callable[[WorldClock], WorldClock]) -> World | None:
        """Replace a world's clock by `change(clock)` under a lock, so two advances never lose one."""
        with self._writing() as connection:
            row = connection.execute(select(WORLDS).where(WORLDS.c.id == world_id).with_for_update()).first()
            if row is None:
                return None
            clock = change(_world(row).clock)
            connection.execute(update(WORLDS).where(WORLDS.c.id == world_id).values(_clock_values(clock)))
            row = connection.execute(select(WORLDS).where(WORLDS.c.id == world_id)).one()
        return _world(row)

    def next_counter(self, world_id: str) -> int:
        """Take the world's next id counter value, atomically across processes and replicas."""
        with self._writing() as connection:
            value = connection.execute(
                update(WORLDS)
                .where(WORLDS.c.id == world_id)
                .values(id_counter=WORLDS.c.id_counter + 1)
                .returning(WORLDS.c.id_counter)
            ).scalar_one_or_none()
        if value is None:  # dropped while a call in it was running
            raise UnknownWorld(world_id)
        return int(value)

    def remove(self, world_id: str) -> bool:
        """Unregister a world; False when it was not registered."""
        with self._writing() as connection:
            return connection.execute(delete(WORLDS).where(WORLDS.c.id == world_id)).rowcount > 0

    def origins(self) -> set[str]:
        """Every place some world resets from (templates in use are never pruned)."""
        with self.engine.connect() as connection:
            return {row[0] for row in connection.execute(select(WORLDS.c.origin).distinct())}

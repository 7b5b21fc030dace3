"""World engines: opened on use, closed when idle or crowded out, so an idle world holds no connection."""

import time

from sqlalchemy import func, select, text

from aftersales.storage.models import Customer
from aftersales.worlds.engines import WorldEngines
from tests.support.worlds import PINNED


class Ticking:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


SETTLE = 5.0  # seconds PostgreSQL may take to end a backend whose client has hung up


def connections_to(worlds, engines: WorldEngines, place, expected: int = 0) -> int:
    """Open connections on a world's database, as the server counts them (PostgreSQL) or the pool does (SQLite)."""
    if worlds.places.backend == "postgresql":
        # A backend leaves pg_stat_activity when its process exits, a moment after the client closed the socket,
        # so the count is read until it is `expected` or SETTLE has passed; a connection left open still fails.
        name, deadline = worlds.places.name(place), time.monotonic() + SETTLE
        query = text("SELECT count(*) FROM pg_stat_activity WHERE datname = :n")
        while True:
            with worlds.registry.engine.connect() as connection:
                count = int(connection.scalar(query, {"n": name}))
            if count == expected or time.monotonic() > deadline:
                return count
            time.sleep(0.05)
    opened = {p: engines.engine(p) for p in engines.open_places()}
    return opened[place].pool.checkedin() if place in opened else 0


def use(engines: WorldEngines, place) -> int:
    with engines.sessions(place)() as session:
        return int(session.scalar(select(func.count()).select_from(Customer)))


def test_a_world_engine_opens_on_use_and_closes_after_the_idle_time(worlds, baseline):
    world = worlds.create(at=PINNED)
    clock = Ticking()
    engines = WorldEngines(worlds.places, worlds.settings, clock=clock)
    assert use(engines, world.location) == len(baseline.tables["customers"])
    assert connections_to(worlds, engines, world.location, expected=1) == 1
    clock.now += worlds.settings.worlds_engine_idle.total_seconds() - 1
    assert engines.sweep() == []
    clock.now += 1
    assert engines.sweep() == [world.location]
    assert engines.open_places() == []
    assert connections_to(worlds, engines, world.location) == 0


def test_past_the_bound_the_least_recently_used_world_engine_is_closed(worlds):
    worlds.settings = worlds.settings.model_copy(update={"worlds_open_engines": 2})
    first, second, third = (worlds.create(at=PINNED) for _ in range(3))
    engines = WorldEngines(worlds.places, worlds.settings, clock=Ticking())
    for world in (first, second, first, third):
        use(engines, world.location)
    assert engines.open_places() == [first.location, third.location]
    assert connections_to(worlds, engines, second.location) == 0
    engines.close_all()
    assert connections_to(worlds, engines, first.location) == 0


def test_a_world_engine_with_a_call_in_progress_is_never_closed_by_the_cache(worlds, baseline):
    worlds.settings = worlds.settings.model_copy(update={"worlds_open_engines": 1})
    busy, other = worlds.create(at=PINNED), worlds.create(at=PINNED)
    clock = Ticking()
    engines = WorldEngines(worlds.places, worlds.settings, clock=clock)
    with engines.sessions(busy.location)() as session:
        session.scalar(select(func.count()).select_from(Customer))  # holds a connection until the block ends
        clock.now += worlds.settings.worlds_engine_idle.total_seconds() * 2
        use(engines, other.location)
        assert engines.sweep() == []
        assert engines.open_places() == [busy.location, other.location]
    assert use(engines, other.location) == len(baseline.tables["customers"])
    assert engines.open_places() == [other.location]
    engines.close_all()

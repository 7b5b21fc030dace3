"""Which world a request runs in: lookups remembered for a second, made off the event loop, never of unknown worlds."""

import threading
from dataclasses import replace
from datetime import timedelta
from types import SimpleNamespace

import pytest

from aftersales import clock
from aftersales.worlds import context
from aftersales.worlds.routing import WorldRouter
from aftersales.worlds.world_errors import UnknownWorld
from tests.support.worlds import PINNED, a_world

pytestmark = pytest.mark.anyio


class Registry:
    """Stands in for the worlds service: live worlds by id, and which thread each lookup ran on."""

    def __init__(self, *ids: str) -> None:
        self.live = {world_id: a_world(world_id) for world_id in ids}
        self.lookups: list[tuple[str, str]] = []
        self.registry = SimpleNamespace(next_counter=lambda _world_id: 1)

    def lookup(self, world_id: str):
        self.lookups.append((world_id, threading.current_thread().name))
        if world_id not in self.live:
            raise UnknownWorld(world_id)
        return self.live[world_id]


class Clock:
    def __init__(self) -> None:
        self.seconds = 100.0

    def __call__(self) -> float:
        return self.seconds


def router(*ids: str) -> tuple[WorldRouter, Registry, Clock]:
    registry, ticking = Registry(*ids), Clock()
    return WorldRouter(registry, ttl=1.0, clock=ticking), registry, ticking  # type: ignore[arg-type]


async def test_a_world_is_read_from_the_registry_on_a_worker_thread_and_then_remembered_for_a_second():
    routing, registry, ticking = router("w-one")
    assert (await routing.resolve("w-one")).id == "w-one"
    moved = registry.live["w-one"].clock.advanced(timedelta(minutes=31))
    registry.live["w-one"] = replace(registry.live["w-one"], clock=moved)  # by another replica
    ticking.seconds += 0.9
    assert (await routing.resolve("w-one")).clock.at == PINNED  # remembered: no registry read
    assert len(registry.lookups) == 1 and registry.lookups[0][1] != threading.current_thread().name
    ticking.seconds += 0.2  # older than a second: read again, and the moved clock shows
    assert (await routing.resolve("w-one")).clock.at == PINNED + timedelta(minutes=31)
    assert len(registry.lookups) == 2


async def test_a_world_this_process_changed_is_read_again_at_once():
    routing, registry, _ = router("w-one")
    await routing.resolve("w-one")
    routing.forget("w-one")
    await routing.resolve("w-one")
    assert len(registry.lookups) == 2


async def test_an_unknown_world_is_refused_every_time_and_served_as_soon_as_it_exists():
    routing, registry, _ = router()
    for _ in range(2):
        with pytest.raises(UnknownWorld):
            await routing.resolve("w-new")
    registry.live["w-new"] = a_world("w-new")  # made through another replica
    assert (await routing.resolve("w-new")).id == "w-new" and len(registry.lookups) == 3


async def test_inside_an_entered_world_the_clock_ids_and_current_world_are_the_worlds():
    routing, _, _ = router("w-one")
    world = await routing.resolve("w-one")
    with routing.entered(replace(world, deterministic=True, seed=5)):
        assert context.current_id() == "w-one" and clock.now() == PINNED and clock.scope() == "w-one"
    assert context.current() is None and clock.scope() is None


def test_a_lookup_that_began_before_this_process_changed_the_world_is_not_remembered_over_the_change():
    """A request in flight while an admin call moves the clock must not leave the old clock cached for a second."""
    routing, registry, _ = router("w-one")
    reading, release = threading.Event(), threading.Event()
    original = registry.lookup

    def slow_lookup(world_id: str):
        found = original(world_id)  # read before the change below commits
        reading.set()
        release.wait(5)
        return found

    registry.lookup = slow_lookup  # type: ignore[method-assign]
    in_flight = threading.Thread(target=routing.get, args=("w-one",))
    in_flight.start()
    assert reading.wait(5)
    moved = registry.live["w-one"].clock.advanced(timedelta(minutes=31))
    registry.live["w-one"] = replace(registry.live["w-one"], clock=moved)  # this process's admin call
    routing.forget("w-one")
    release.set()
    in_flight.join(5)
    registry.lookup = original  # type: ignore[method-assign]
    assert routing.get("w-one").clock.at == PINNED + timedelta(minutes=31)

"""Which world a request runs in: registry lookups remembered for a second, never made on the event loop.

A request whose token names a world looks the world up here. A hit is answered from memory; a miss (or an entry
older than `ttl`) reads the registry where database work runs (storage.runner: the event loop on PostgreSQL, a worker
thread on SQLite). This process's own admin operations forget the world at
once, so a clock advanced or a world dropped through this process is seen by its next request; other replicas see
the change within `ttl`. Unknown worlds are not remembered, so a world created through another replica is served
as soon as it exists.
"""

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from aftersales.storage.runner import DatabaseRunner
from aftersales.worlds import context
from aftersales.worlds.model import World
from aftersales.worlds.service import Worlds

TTL = 1.0  # seconds a lookup is trusted


class WorldRouter:
    """A per-process cache of live worlds in front of the registry."""

    def __init__(
        self,
        worlds: Worlds,
        ttl: float = TTL,
        clock: Callable[[], float] = time.monotonic,
        database: DatabaseRunner | None = None,
    ) -> None:
        self.worlds, self._ttl, self._clock = worlds, ttl, clock
        self._database = database or DatabaseRunner(on_loop=False)
        self._known: dict[str, tuple[World, float]] = {}
        # How many times each world was forgotten: a lookup that began before a forget read the world as it was
        # and must not be remembered over the change (a request still in flight while an admin call moved a clock).
        self._forgotten: dict[str, int] = {}
        self._lock = threading.Lock()

    async def resolve(self, world_id: str) -> World:
        """The live world `world_id` (UnknownWorld when there is none); registry I/O where database work runs."""
        known = self._remembered(world_id)
        if known is not None:
            return known
        return await self._database.read(lambda: self.get(world_id))

    def get(self, world_id: str) -> World:
        """The live world `world_id`, from memory or the registry (blocking: call off the event loop, or through
        storage.runner)."""
        known = self._remembered(world_id)
        if known is not None:
            return known
        with self._lock:
            began = self._forgotten.get(world_id, 0)
        world = self.worlds.lookup(world_id)
        with self._lock:
            if self._forgotten.get(world_id, 0) == began:
                if len(self._known) >= 4096:
                    self._known.clear()
                self._known[world_id] = (world, self._clock())
        return world

    def forget(self, world_id: str) -> None:
        """Read the world from the registry next time (after this process changed or dropped it)."""
        with self._lock:
            self._known.pop(world_id, None)
            if len(self._forgotten) >= 4096:
                self._forgotten.clear()  # a lookup in flight across this clear may be remembered: for a second only
            self._forgotten[world_id] = self._forgotten.get(world_id, 0) + 1

    @contextmanager
    def entered(self, world: World) -> Iterator[World]:
        """Run the enclosed code in `world`: its clock, its ids, its database."""
        with context.entered(world, self.worlds.registry.next_counter):
            yield world

    def _remembered(self, world_id: str) -> World | None:
        with self._lock:
            known = self._known.get(world_id)
        if known is None or self._clock() - known[1] > self._ttl:
            return None
        return known[0]

"""The demo's data: the demo world made from the baseline, and a fresh fork of it per column and case run.

The demo serves the server's own /mcp with the real worlds machinery (aftersales/worlds/): every run forks the demo
world once per column and hands that column a token bound to its fork (the `wld` claim routes each request there),
so a case can run again and again on the same order and both columns get the same ticket numbers. The forks of the
run on the page stay until the next run starts (so "Copy as curl" still reaches them), then they are dropped; the
registry holds the demo world and one run's forks, never more. Reset drops every world and makes the demo world
from the baseline again.
"""

import threading
from contextlib import suppress
from dataclasses import dataclass
from datetime import timedelta

from aftersales.app import App
from aftersales.domain.callers import ALL_SCOPES
from aftersales.storage import migrate
from aftersales.worlds.world_errors import UnknownWorld

CALLER = "demo-agent"  # the caller id the demo's clients act as (owner of quotes, scope of idempotency keys)
DEMO = "demo"  # the demo world's id
TOKEN_TTL = timedelta(hours=12)  # a column's token: longer than anyone presents, bound to a fork dropped sooner


@dataclass(frozen=True)
class Endpoint:
    """Where one column's client connects, and what the demo may know about the state it is sealed with."""

    url: str
    token: str
    caller: str
    world: str
    state_keys: list[str]
    state_ttl: timedelta
    remote: bool = False  # another server the presenter pointed the page at: its data, its keys (unknown here)


class DemoWorlds:
    """The demo world and the current run's forks, in `app`'s registry; `others` serve the same worlds elsewhere."""

    def __init__(self, app: App, others: tuple[App, ...] = ()) -> None:
        self.app, self.others = app, others
        self.forks: list[str] = []
        self._lock = threading.Lock()  # forks are made and dropped on worker threads

    def rebuild(self) -> None:
        """Drop every world, then make the demo world from the baseline again (dates anchored to today)."""
        with self._lock:
            migrate.upgrade(self.app.engine)  # the control database: the worlds registry lives there
            for world, _ in self.app.worlds.all():
                self._drop(world.id)
            self.forks.clear()
            self.app.worlds.create("baseline", world_id=DEMO)

    def fresh(self, url: str, app: App) -> Endpoint:
        """A new fork of the demo world and a token bound to it, for a client of `app` at `url`."""
        with self._lock:
            try:
                world = self.app.worlds.fork(DEMO)
            except UnknownWorld:
                # Housekeeping drops a world unused for AFTERSALES_WORLDS_IDLE_TTL: a demo left alone that long
                # gets its demo world again instead of failing.
                self.app.worlds.create("baseline", world_id=DEMO)
                world = self.app.worlds.fork(DEMO)
            self.forks.append(world.id)
        token = self.app.worlds.token(world.id, CALLER, list(ALL_SCOPES), TOKEN_TTL)
        return Endpoint(url, token, CALLER, world.id, app.state_keys, app.settings.state_ttl)

    def release(self) -> None:
        """Drop the forks made so far (the run that used them has ended)."""
        with self._lock:
            forks, self.forks = self.forks, []
            for world_id in forks:
                self._drop(world_id)

    def _drop(self, world_id: str) -> None:
        """Drop a world, and make every App serving it forget it and close its connections to it."""
        world = self.app.worlds.registry.get(world_id)
        if world is None:  # housekeeping dropped it already
            return
        with suppress(UnknownWorld):  # housekeeping got there in between
            self.app.worlds.drop(world_id)
        for app in (self.app, *self.others):
            app.router.forget(world_id)
            app.worlds.engines.close(world.location)

"""World engines, opened on first use and closed when idle, so a world nobody calls holds no connection.

One process serves many worlds: a pool per world is opened lazily, kept while used, disposed after
`AFTERSALES_WORLDS_ENGINE_IDLE` without use, and the least recently used one is disposed when more than
`AFTERSALES_WORLDS_OPEN_ENGINES` are open; an engine with a connection checked out is never closed by the cache,
since that would end a call. Dropping, resetting or forking a world closes its engine first.
"""

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from aftersales.settings import Settings
from aftersales.storage.database import make_engine, make_session_factory
from aftersales.storage.runner import checked_out, dispose
from aftersales.worlds.model import Place
from aftersales.worlds.storage.places import Places


@dataclass
class _Open:
    engine: Engine
    sessions: sessionmaker[Session]
    used: float


CLOSED_KEPT = 64  # closed engines kept for a second dispose, at most, between sweeps


class WorldEngines:
    """A bounded cache of engines by place."""

    def __init__(self, places: Places, settings: Settings, clock: Callable[[], float] = time.monotonic) -> None:
        self._places, self._settings, self._clock = places, settings, clock
        self._open: OrderedDict[Place, _Open] = OrderedDict()
        # Engines the cache closed, kept until the next sweep: a caller that took one's session factory just before
        # may still open a connection on it, which the second dispose closes (unreferenced, it would leak unclosed).
        self._closed: list[Engine] = []
        self._lock = threading.Lock()

    def sessions(self, place: Place) -> sessionmaker[Session]:
        """The session factory of a world's engine, opening it if needed."""
        return self._entry(place).sessions

    def engine(self, place: Place) -> Engine:
        """A world's engine, opening it if needed."""
        return self._entry(place).engine

    def close(self, place: Place) -> None:
        """Dispose a world's engine, if open (before its database is dropped, reset or copied)."""
        with self._lock:
            entry = self._open.pop(place, None)
        if entry is not None:
            dispose(entry.engine)

    def sweep(self) -> list[Place]:
        """Dispose engines unused for the idle time; return whose."""
        with self._lock:
            idle = [place for place, entry in self._open.items() if self._idle(entry, self._clock())]
            closing = [self._open.pop(place).engine for place in idle]
            again, self._closed = [e for e in self._closed if not _in_use(e)], [e for e in self._closed if _in_use(e)]
            self._closed += closing
        for engine in [*closing, *again]:
            dispose(engine)
        return idle

    def open_places(self) -> list[Place]:
        """Places with an open engine, least recently used first."""
        with self._lock:
            return list(self._open)

    def close_all(self) -> None:
        """Dispose every engine."""
        with self._lock:
            closing = [entry.engine for entry in self._open.values()] + self._closed
            self._open.clear()
            self._closed = []
        for engine in closing:
            dispose(engine)

    def _entry(self, place: Place) -> _Open:
        now = self._clock()
        with self._lock:
            entry = self._open.get(place)
            if entry is None:
                engine = self._make(place)
                entry = self._open[place] = _Open(engine, make_session_factory(engine), now)
            entry.used = now
            self._open.move_to_end(place)
            closing = self._evict(now, keep=place)
            again = []
            if len(self._closed) > CLOSED_KEPT:  # many closed between sweeps: let the oldest idle ones go now
                again = [e for e in self._closed if not _in_use(e)]
                self._closed = [e for e in self._closed if _in_use(e)]
            self._closed += closing
        for engine in [*closing, *again]:  # outside the lock: other worlds' calls need not wait for it
            dispose(engine)
        return entry

    def _make(self, place: Place) -> Engine:
        settings = self._settings
        return make_engine(
            self._places.url(place),
            statement_timeout_ms=int(settings.db_statement_timeout.total_seconds() * 1000),
            pool_size=settings.worlds_pool_size,
            max_overflow=settings.db_max_overflow,
            pool_timeout=settings.db_pool_timeout.total_seconds(),
        )

    def _idle(self, entry: _Open, now: float) -> bool:
        """Unused for the idle time and no connection out: closing it interrupts nothing."""
        return not _in_use(entry.engine) and now - entry.used >= self._settings.worlds_engine_idle.total_seconds()

    def _evict(self, now: float, keep: Place) -> list[Engine]:
        """Called under the lock: drop idle entries, then the least recently used beyond the bound, if not busy."""
        closing = [self._open.pop(p).engine for p, e in list(self._open.items()) if self._idle(e, now)]
        spare = [p for p, e in self._open.items() if p != keep and not _in_use(e.engine)]
        while len(self._open) > self._settings.worlds_open_engines and spare:
            closing.append(self._open.pop(spare.pop(0)).engine)
        return closing


def _in_use(engine: Engine) -> bool:
    """Whether a call holds a connection of `engine`, or of its asyncpg twin on an event loop (storage.runner)."""
    return bool(getattr(engine.pool, "checkedout", lambda: 0)() or checked_out(engine))

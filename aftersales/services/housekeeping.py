"""Housekeeping that need not run on every call: purges happen at most once a minute per clock.

Each clock scope (`clock.scope()`: the wall clock, or a world's) keeps its own last time, so calls on one clock
never decide when data read on another is purged, and a clock set back (a world reset) purges again at once.
"""

import threading
from datetime import datetime, timedelta

from aftersales import clock


class Occasionally:
    """Says yes at most once per `interval` per clock scope, so a hot path pays for a purge only now and then."""

    def __init__(self, interval: timedelta = timedelta(minutes=1)) -> None:
        self.interval, self._lock = interval, threading.Lock()
        self._last: dict[str | None, datetime] = {}

    def due(self, now: datetime) -> bool:
        """Whether the interval has passed since the last yes on this clock (and claim this one)."""
        scope = clock.scope()
        with self._lock:
            last = self._last.get(scope)
            if last is not None and timedelta(0) <= now - last < self.interval:
                return False
            if len(self._last) >= 4096 and scope not in self._last:
                self._last.clear()  # scopes come and go with worlds; forgetting them costs one early purge
            self._last[scope] = now
            return True

"""Housekeeping that need not run on every call: purges happen at most once a minute per process."""

import threading
from datetime import datetime, timedelta


class Occasionally:
    """Says yes at most once per `interval`, so a hot path pays for a purge only now and then."""

    def __init__(self, interval: timedelta = timedelta(minutes=1)) -> None:
        self.interval, self._lock = interval, threading.Lock()
        self._last: datetime | None = None

    def due(self, now: datetime) -> bool:
        """Whether the interval has passed since the last yes (and claim this one)."""
        with self._lock:
            if self._last is not None and now - self._last < self.interval:
                return False
            self._last = now
            return True

"""How much of the busy PostgreSQL sessions' time goes to waiting on a lock, sampled while a scenario runs."""

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import text

from aftersales.storage.database import make_engine

EVERY = 0.02  # seconds between samples of pg_stat_activity
SAMPLE = text(
    "SELECT count(*) FILTER (WHERE wait_event_type = 'Lock'), count(*) FILTER (WHERE state = 'active') "
    "FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
    "AND backend_type = 'client backend'"
)


@dataclass
class LockWaits:
    """Sessions seen waiting on a lock and sessions seen busy, summed over the samples."""

    waiting: int = 0
    busy: int = 0

    @property
    def share(self) -> float:
        """The share of busy session samples that were waiting on a lock (creates behind one lock: near 1)."""
        return round(self.waiting / self.busy, 3) if self.busy else 0.0


@contextmanager
def lock_waits(database_url: str) -> Iterator[LockWaits]:
    """Sample the database's sessions on a thread for as long as the block runs."""
    found, stop = LockWaits(), threading.Event()
    engine = make_engine(database_url, isolation_level="AUTOCOMMIT")

    def sample() -> None:
        with engine.connect() as connection:
            while not stop.wait(EVERY):
                waiting, busy = connection.execute(SAMPLE).one()
                found.waiting, found.busy = found.waiting + waiting, found.busy + busy

    sampler = threading.Thread(target=sample, name="lock-waits", daemon=True)
    sampler.start()
    try:
        yield found
    finally:
        stop.set()
        sampler.join()
        engine.dispose()

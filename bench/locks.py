"""How much of the busy PostgreSQL sessions' time goes to waiting on a lock, sampled while a scenario runs."""

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from sqlalchemy import text

from aftersales.storage.database import make_engine

EVERY = 0.02  # seconds between samples of pg_stat_activity
SAMPLE = text(
    "SELECT wait_event_type = 'Lock' AS waiting, wait_event FROM pg_stat_activity WHERE state = 'active' "
    "AND datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
)


@dataclass
class LockWaits:
    """Sessions seen waiting on a lock and sessions seen busy, summed over the samples."""

    waiting: int = 0
    busy: int = 0
    events: dict[str, int] = field(default_factory=dict)  # the lock waited for (transactionid: a row another holds)

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
                for waiting, event in connection.execute(SAMPLE):
                    found.busy += 1
                    if waiting:
                        found.waiting += 1
                        found.events[event] = found.events.get(event, 0) + 1

    sampler = threading.Thread(target=sample, name="lock-waits", daemon=True)
    sampler.start()
    try:
        yield found
    finally:
        stop.set()
        sampler.join()
        engine.dispose()

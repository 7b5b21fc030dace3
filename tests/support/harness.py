"""Harness hosts for tests: a private SQLite folder, or a PostgreSQL control database with this run's prefix."""

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from aftersales.testing.host import Host, harness_settings
from tests.support.worlds import WorldsHome


@contextmanager
def hosting(folder: Path, database_url: str | None = None, home: WorldsHome | None = None) -> Iterator[Host]:
    """A started harness host; on PostgreSQL its worlds and templates use the run's name prefix."""
    changes = {"worlds_prefix": home.prefix, "worlds_dir": home.folder} if home else {}
    with Host(harness_settings(database_url, folder, **changes)) as host:
        yield host

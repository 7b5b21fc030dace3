"""Harness hosts for tests: a private SQLite folder, or a PostgreSQL control database with this run's prefix."""

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from aftersales.testing.check import check_tasks, explain
from aftersales.testing.hosts.in_process import Host, harness_settings
from aftersales.testing.loader import load
from tests.support.worlds import WorldsHome


@contextmanager
def hosting(folder: Path, database_url: str | None = None, home: WorldsHome | None = None) -> Iterator[Host]:
    """A started harness host; on PostgreSQL its worlds and templates use the run's name prefix."""
    changes = {"worlds_prefix": home.prefix, "worlds_dir": home.folder} if home else {}
    with Host(harness_settings(database_url, folder, **changes)) as host:
        yield host


@contextmanager
def checking_host(backend: str, request: pytest.FixtureRequest, folder: Path) -> Iterator[Host]:
    """A harness on `backend` for `tasks check` (on PostgreSQL, its control database is the test's seeded copy)."""
    if backend == "sqlite":
        with hosting(folder) as started:
            yield started
        return
    home = request.getfixturevalue("postgres_worlds_home")
    with hosting(folder, request.getfixturevalue("database_url"), home) as started:
        yield started


def every_shipped_reference_passes(host: Host, conversations_every: int = 1) -> None:
    """Every shipped task's reference reaches its outcome and obeys its rules on `host`: in brief mode each task,
    and in a conversation every `conversations_every`-th task (each, by default)."""
    tasks = load()
    results = check_tasks(host, tasks, parallel=2, modes=["brief"])
    results += check_tasks(host, tasks[::conversations_every], parallel=2, modes=["conversation"])
    failures = {result.task.id: explain(result) for result in results if not result.passed}
    assert not failures, "\n".join(f"{name}:\n{text}" for name, text in failures.items())
    assert len(results) >= 40

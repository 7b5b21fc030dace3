"""The web app's housekeeping: a server that has served worlds drops unused ones every minute, off the event loop."""

import threading
from types import SimpleNamespace

import anyio
import pytest

from aftersales.web.app import housekeeping

pytestmark = pytest.mark.anyio


class Expiring:
    """Stands in for the worlds service: counts expiries and the threads they ran on; the second one fails."""

    def __init__(self) -> None:
        self.threads: list[str] = []

    def expire(self) -> list[str]:
        self.threads.append(threading.current_thread().name)
        if len(self.threads) == 2:
            raise RuntimeError("the control database is restarting")
        return []


async def test_housekeeping_expires_worlds_on_a_worker_thread_and_survives_a_failure(caplog):
    worlds = Expiring()
    app = SimpleNamespace(worlds=worlds)  # a process that has served worlds
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(housekeeping, app, 0.01)
        with anyio.fail_after(5):
            while len(worlds.threads) < 3:  # the failed second run did not end the loop
                await anyio.sleep(0.01)
        tasks.cancel_scope.cancel()
    assert len(worlds.threads) >= 3 and threading.current_thread().name not in worlds.threads
    assert "world housekeeping failed" in caplog.text


async def test_a_process_that_never_served_a_world_does_not_open_the_worlds_to_tidy_them():
    touched: list[str] = []

    class App:
        @property
        def worlds(self) -> None:
            touched.append("worlds")

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(housekeeping, App(), 0.01)
        await anyio.sleep(0.05)
        tasks.cancel_scope.cancel()
    assert touched == []

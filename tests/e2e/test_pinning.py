"""`aftersales serve --pin-cpus`: every thread of each server process on one CPU; off by default."""

import os
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.affinity import thread_cpus
from tests.support.clients import connect_http
from tests.support.serve import ServeProcess

pytestmark = [pytest.mark.anyio, pytest.mark.http]
QUERY = "after_sales_query_ticket"
ALLOWED = sorted(os.sched_getaffinity(0))  # what a server started from this test process may use
WAIT = 60  # seconds


@pytest.fixture
def servers(sqlite_template, tmp_path, monkeypatch) -> Iterator[list[ServeProcess]]:
    """Servers a test starts on copies of the seeded template, each stopped afterwards."""
    monkeypatch.delenv("AFTERSALES_PIN_CPUS", raising=False)  # the default is what these tests start from
    started: list[ServeProcess] = []
    yield started
    for server in started:
        server.stop()


def start(servers: list[ServeProcess], folder: Path, template: Path, *options: str, **settings: str) -> ServeProcess:
    """`serve` with these options and settings on a copy of `template`, started, announced, kept in `servers`."""
    folder.mkdir()
    shutil.copyfile(template, folder / "aftersales.db")
    server = ServeProcess(f"sqlite:///{folder / 'aftersales.db'}", folder, settings=settings, options=list(options))
    servers.append(server)
    server.start()
    deadline = time.monotonic() + WAIT
    while "serving MCP at" not in server.log.read_text():  # under --workers, once every worker accepts
        assert time.monotonic() < deadline, server.log.read_text()[-2000:]
        time.sleep(0.05)
    return server


async def one_call(server: ServeProcess) -> None:
    """A tool call, so the threads a process starts only when it serves one exist too."""
    async with connect_http(server.url, server.token()) as client:
        assert (await client.call_tool(QUERY, {"ticket_id": "T-2026-0001"})).is_error is False


@pytest.mark.parametrize(
    ("options", "settings"), [(["--pin-cpus"], {}), ([], {"AFTERSALES_PIN_CPUS": "true"})], ids=["flag", "setting"]
)
async def test_a_pinned_server_runs_every_thread_on_the_first_allowed_cpu_and_says_so(
    servers, sqlite_template, tmp_path, options, settings
):
    server = start(servers, tmp_path / "pinned", sqlite_template, *options, **settings)
    await one_call(server)
    assert server.process is not None
    threads = thread_cpus(server.process.pid)
    assert len(threads) > 2 and set(threads.values()) == {frozenset({ALLOWED[0]})}, threads
    log = server.log.read_text()
    assert f"pinned to CPU {ALLOWED[0]}  (health" in log and f"{server.process.pid} pinned to CPU {ALLOWED[0]}" in log


async def test_without_pinning_every_thread_keeps_every_cpu_the_server_was_started_with(
    servers, sqlite_template, tmp_path
):
    server = start(servers, tmp_path / "default", sqlite_template)
    await one_call(server)
    assert server.process is not None
    threads = thread_cpus(server.process.pid)
    assert len(threads) > 2 and set(threads.values()) == {frozenset(ALLOWED)}, threads
    assert "pinned" not in server.log.read_text()


@pytest.mark.skipif(len(ALLOWED) < 2, reason="two workers share the only CPU this machine allows")
async def test_two_pinned_workers_run_on_different_cpus_a_replacement_takes_its_slots_and_the_parent_is_free(
    servers, sqlite_template, tmp_path
):
    server = start(servers, tmp_path / "workers", sqlite_template, "--workers", "2", "--pin-cpus")
    assert server.process is not None
    assert set(thread_cpus(server.process.pid).values()) == {frozenset(ALLOWED)}  # the supervisor is not pinned
    cpus = {pid: set(thread_cpus(pid).values()) for pid in server.children()}
    assert len(cpus) == 2 and {frozenset(ALLOWED[:1]), frozenset(ALLOWED[1:2])} == set().union(*cpus.values()), cpus
    assert all(len(sets) == 1 for sets in cpus.values()), cpus  # each worker's threads all on its one CPU
    assert f"with 2 worker processes pinned to CPUs {ALLOWED[0]}, {ALLOWED[1]}" in server.log.read_text()

    victim = min(cpus)
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + WAIT
    while len(now := server.children()) != 2 or victim in now:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    (replacement,) = now - set(cpus)
    while f"process {replacement} pinned to CPU" not in server.log.read_text():  # it pins itself once started
        assert time.monotonic() < deadline, server.log.read_text()[-2000:]
        time.sleep(0.2)
    assert set(thread_cpus(replacement).values()) == cpus[victim]


@pytest.mark.skipif(len(ALLOWED) < 2, reason="needs a CPU other than the first to leave the server")
async def test_a_server_allowed_only_some_cpus_pins_to_one_of_those_not_to_cpu_0(servers, sqlite_template, tmp_path):
    # As in a container's cpuset: the server may use only the last CPU, so pinning must not assume CPU 0.
    only = ALLOWED[-1]
    os.sched_setaffinity(0, {only})  # this thread's mask is what the server process inherits
    try:
        server = start(servers, tmp_path / "cpuset", sqlite_template, "--pin-cpus")
    finally:
        os.sched_setaffinity(0, set(ALLOWED))
    await one_call(server)
    assert server.process is not None
    assert set(thread_cpus(server.process.pid).values()) == {frozenset({only})}
    assert f"pinned to CPU {only}  (health" in server.log.read_text()

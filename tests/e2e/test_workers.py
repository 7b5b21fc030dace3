"""`aftersales serve --workers 2`: two processes on one port, each serving calls, stopped together by one SIGTERM."""

import json
import os
import shutil
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest
from mcp.shared.exceptions import MCPError
from prometheus_client.parser import text_string_to_metric_families

from aftersales.storage.models import ToolCall
from tests.support.clients import connect_http
from tests.support.database import count_rows, engine_at
from tests.support.serve import ServeProcess

pytestmark = [pytest.mark.anyio, pytest.mark.http]
QUERY = "after_sales_query_ticket"


def workers(folder: Path, template: Path | None, **settings: str) -> ServeProcess:
    """`serve` with two workers on a copy of `template` (or on a fresh, empty database), started."""
    if template is not None:
        shutil.copyfile(template, folder / "aftersales.db")
    process = ServeProcess(
        f"sqlite:///{folder / 'aftersales.db'}", folder, settings=settings, options=["--workers", "2"]
    )
    process.start()
    return process


@pytest.fixture(scope="module")
def two(sqlite_template, tmp_path_factory) -> Iterator[ServeProcess]:
    """One two-worker server for the tests below, in file order; the last one kills it."""
    process = workers(tmp_path_factory.mktemp("two-workers"), sqlite_template)
    yield process
    process.stop()


def calls_counted(text: str) -> float:
    """The sum of aftersales_tool_calls_total in one /metrics exposition."""
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "aftersales_tool_calls_total"
    )


def per_worker_calls(url: str, expected: set[int]) -> dict[int, float]:
    """Each worker's count of tool calls: /healthz and /metrics on one connection reach the same process."""
    seen: dict[int, float] = {}
    for _ in range(200):
        with httpx.Client(base_url=url, limits=httpx.Limits(max_connections=1)) as http:
            pid = http.get("/healthz").json()["pid"]
            seen[pid] = calls_counted(http.get("/metrics").text)
        if set(seen) == expected:
            break
    return seen


async def test_two_workers_each_serve_calls_and_count_their_own(two):
    pids = two.children()
    assert len(pids) == 2 and two.process.pid not in pids
    made, counts = 0, {}
    for _ in range(10):  # the kernel picks the worker for each connection; ten per round is almost always both
        for number in range(10):
            async with connect_http(two.url, two.token()) as client:  # a new connection each call
                answer = await client.call_tool(QUERY, {"ticket_id": f"T-2026-{number + 1:04d}"})
            assert answer.is_error is False
            made += 1
        counts = per_worker_calls(two.url, pids)
        if len(counts) == 2 and all(counts.values()):
            break
    assert set(counts) == pids and all(counts.values()), counts
    assert sum(counts.values()) == made  # metrics are per process: together they count every call once


def answering_pids(url: str, connections: int) -> set[int]:
    """Open `connections` connections at once, then ask /healthz on each: the pids of the workers that took them."""
    address = httpx.URL(url)
    host, port = address.host, address.port
    assert port is not None
    socks = [socket.create_connection((host, port), timeout=10) for _ in range(connections)]
    try:
        for sock in socks:
            sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        return {json.loads(_body(sock))["pid"] for sock in socks}
    finally:
        for sock in socks:
            sock.close()


def _body(sock: socket.socket) -> bytes:
    """The body of the one HTTP/1.1 response waiting on `sock` (sized by its Content-Length)."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += _chunk(sock, data)
    head, _, body = data.partition(b"\r\n\r\n")
    sized = (line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    length = int(next(sized).split(b":")[1])
    while len(body) < length:
        body += _chunk(sock, body)
    return body


def _chunk(sock: socket.socket, so_far: bytes) -> bytes:
    """The next bytes on `sock`; a connection the server closed fails the test instead of spinning on b""."""
    chunk = sock.recv(4096)
    assert chunk, f"the server closed the connection after {so_far!r}"
    return chunk


def test_connections_opened_at_once_are_spread_over_every_worker(two):
    # A client's pool or a load balancer opens many connections at once. With one shared listening socket, the worker
    # that woke first accepted them all (measured: 16 on one of two workers in about half the bursts). Each burst of
    # 16 must reach both; by chance alone all 16 on one of two would happen once in 32,768 bursts.
    pids = two.children()
    for _ in range(5):
        assert answering_pids(two.url, 16) == pids


async def test_a_2025_11_25_session_is_refused_with_the_reason_and_2026_07_28_works(two):
    reason = r"runs 2 worker processes.*2025-11-25 session.*protocol 2026-07-28.*--workers 1"
    with pytest.RaisesGroup(pytest.RaisesExc(MCPError, match=reason), flatten_subgroups=True):  # client task groups
        async with connect_http(two.url, two.token(), mode="legacy") as client:
            await client.call_tool(QUERY, {"ticket_id": "T-2026-0001"})
    async with connect_http(two.url, two.token()) as client:
        assert client.protocol_version == "2026-07-28"
        assert (await client.call_tool(QUERY, {"ticket_id": "T-2026-0001"})).is_error is False


async def test_a_worker_that_dies_is_replaced(two):
    first = two.children()
    victim = min(first)
    os.kill(victim, signal.SIGKILL)
    with anyio.fail_after(60):
        while len(now := two.children()) != 2 or victim in now:
            await anyio.sleep(0.2)
        # A connection the kernel queued on the dead worker's socket waits for its replacement: on a busy machine
        # longer than one request's timeout, which is "not ready yet", not a failure.
        while not two.ready():
            await anyio.sleep(0.2)
    assert "exited with status -9; starting another" in two.log.read_text()


async def test_workers_stop_when_the_parent_is_killed(two):
    pids = two.children()
    two.process.kill()  # no chance to stop its workers: they notice the parent is gone
    two.process.wait()
    with anyio.fail_after(30):
        while any(Path(f"/proc/{pid}").exists() and not _zombie(pid) for pid in pids):
            await anyio.sleep(0.2)


async def test_sigterm_stops_every_worker_exits_0_and_keeps_every_audit_record(tmp_path):
    server = workers(tmp_path, None)  # a fresh database: the parent migrates it once, before any worker starts
    pids = server.children()
    for number in range(12):
        async with connect_http(server.url, server.token()) as client:
            await client.call_tool(QUERY, {"ticket_id": f"T-2026-{number + 1:04d}"})  # not found: no tickets yet
    started = time.monotonic()
    server.signal(signal.SIGTERM)  # within the audit writers' batch window: records are still queued
    await anyio.to_thread.run_sync(server.wait, 15)
    # Well inside uvicorn's 20 s grace period and the parent's 30 s before it kills (~1 s on a quiet machine).
    assert server.process.returncode == 0 and time.monotonic() - started < 10
    assert not any(Path(f"/proc/{pid}").exists() for pid in pids)
    log = server.log.read_text()
    assert "Traceback" not in log and "ERROR" not in log, log[-3000:]
    assert log.count("database ready") == 1
    with engine_at(server.database_url) as engine:
        assert count_rows(engine, ToolCall) == 12


def _zombie(pid: int) -> bool:
    """Whether `pid` has exited but was not reaped yet (its parent is gone; init reaps it shortly)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True

"""Stopping a real `aftersales serve`: open streams end at once and gracefully, and the log stays clean."""

import shutil
import signal
import socket
import time
from collections.abc import Iterator

import anyio
import httpx
import pytest

from aftersales.storage.models import ToolCall
from tests.support.clients import connect_http
from tests.support.database import count_rows, engine_at
from tests.support.serve import ServeProcess
from tests.support.sessions import LegacyCallers

pytestmark = [pytest.mark.anyio, pytest.mark.http]
LEFT_EARLY = "left before sending the whole request body"


@pytest.fixture
def server(sqlite_template, tmp_path) -> Iterator[ServeProcess]:
    """`aftersales serve` on a private copy of the seeded SQLite database."""
    shutil.copyfile(sqlite_template, tmp_path / "aftersales.db")
    process = ServeProcess(f"sqlite:///{tmp_path / 'aftersales.db'}", tmp_path)
    process.start()
    yield process
    process.stop()


def assert_clean(log: str) -> None:
    assert "Traceback" not in log and "ERROR" not in log and "CancelledError" not in log, log[-3000:]


async def test_sigterm_with_a_listen_stream_and_a_get_stream_open_exits_without_waiting_out_the_grace_period(server):
    async with connect_http(server.url, server.token()) as client, httpx.AsyncClient() as http:
        assert client.protocol_version == "2026-07-28"
        legacy = LegacyCallers(server.url, server.keys, http)
        session = await legacy.open_session("support-bot")
        async with client.listen(tools_list_changed=True) as subscription, legacy.stream("support-bot", session) as get:
            started = time.monotonic()
            server.signal(signal.SIGTERM)
            with anyio.fail_after(5):
                events = [event async for event in subscription]  # an abrupt drop would raise SubscriptionLost
                rest = [chunk async for chunk in get.aiter_bytes()]  # an abrupt drop would raise RemoteProtocolError
    await anyio.to_thread.run_sync(server.wait, 10)
    elapsed = time.monotonic() - started
    assert (events, rest) == ([], [])
    # The streams used to hold shutdown for uvicorn's whole 20 s grace period; on a quiet machine it takes ~1 s.
    assert elapsed < 10, f"shutdown took {elapsed:.1f} s"
    assert_clean(server.log.read_text())


def send_half_a_body(url: str, token: str, protocol_version: str | None) -> None:
    """POST /mcp announcing 1,000 bytes, send 40 of them, and hang up."""
    host, port = url.removeprefix("http://").split(":")
    version = f"MCP-Protocol-Version: {protocol_version}\r\n" if protocol_version else ""
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{version}"
        "Content-Length: 1000\r\n\r\n"
    )
    with socket.create_connection((host, int(port))) as connection:
        connection.sendall(head.encode() + b'{"jsonrpc": "2.0", "id": 1, "method": ')
        time.sleep(0.2)


async def test_a_client_that_disconnects_mid_body_costs_one_log_line_and_no_traceback(server):
    for version in ("2026-07-28", "2025-11-25", None):
        send_half_a_body(server.url, server.token(), version)
    with anyio.fail_after(10):
        while server.log.read_text().count(LEFT_EARLY) < 3:
            await anyio.sleep(0.05)
    async with connect_http(server.url, server.token()) as client:
        assert (await client.call_tool("after_sales_query_ticket", {"ticket_id": "T-2026-0357"})).is_error is False
    server.signal(signal.SIGTERM)
    await anyio.to_thread.run_sync(server.wait, 10)
    assert_clean(server.log.read_text())


async def test_sigterm_right_after_calls_keeps_every_audit_record(server):
    async with connect_http(server.url, server.token()) as client:
        for number in range(5):
            await client.call_tool("after_sales_query_ticket", {"ticket_id": f"T-2026-{number:04d}"})
    server.signal(signal.SIGTERM)  # within the audit writer's batch window: the records are still queued
    await anyio.to_thread.run_sync(server.wait, 10)
    with engine_at(server.database_url) as engine:
        assert count_rows(engine, ToolCall) == 5

"""The stdio transport: a local host launches `aftersales serve --stdio` as a subprocess."""

import json
import os
import signal
import subprocess

import pytest
from mcp import Client, StdioServerParameters

from aftersales.storage.models import ToolCall
from tests.support.database import count_rows
from tests.support.serve import SERVE

pytestmark = pytest.mark.anyio
STDIO = [*SERVE, "--stdio"]


def stdio_env(app) -> dict[str, str]:
    """The subprocess's environment: the test's database and data dir, quiet logs."""
    return {
        **os.environ,
        "AFTERSALES_DATABASE_URL": app.settings.resolved_database_url,
        "AFTERSALES_DATA_DIR": str(app.settings.data_dir),
        "AFTERSALES_LOG_LEVEL": "WARNING",
    }


async def test_a_local_host_reads_a_ticket_over_stdio(app, stories):
    params = StdioServerParameters(command=STDIO[0], args=STDIO[1:], env=stdio_env(app))
    ticket_id = stories["ticket_rejected"]["ticket_id"]
    async with Client(params) as client:
        result = await client.call_tool("after_sales_query_ticket", {"ticket_id": ticket_id})
    assert result.structured_content["stage"] == "closed"
    assert result.structured_content["status"] == "rejected"


async def test_every_stdio_call_is_in_the_audit_once_the_host_closes_the_pipe(app, stories):
    params = StdioServerParameters(command=STDIO[0], args=STDIO[1:], env=stdio_env(app))
    ticket_id = stories["ticket_rejected"]["ticket_id"]
    async with Client(params) as client:
        for _ in range(5):
            await client.call_tool("after_sales_query_ticket", {"ticket_id": ticket_id})
    assert count_rows(app.engine, ToolCall) == 5


def test_a_stdio_server_stopped_with_sigterm_still_writes_its_last_calls(app, stories):
    """A host that signals while it keeps the pipe open loses no records either, and the server exits at once."""
    ticket_id = stories["ticket_rejected"]["ticket_id"]
    with subprocess.Popen(
        STDIO, env=stdio_env(app), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    ) as process:
        assert process.stdin is not None and process.stdout is not None

        def exchange(message: dict) -> dict | None:
            process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
            process.stdin.flush()
            return json.loads(process.stdout.readline()) if "id" in message else None

        hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "host", "version": "1"}}
        assert "result" in exchange({"id": 0, "method": "initialize", "params": hello})
        exchange({"method": "notifications/initialized"})
        for number in range(1, 4):
            call = {"name": "after_sales_query_ticket", "arguments": {"ticket_id": ticket_id}}
            assert exchange({"id": number, "method": "tools/call", "params": call})["id"] == number
        process.send_signal(signal.SIGTERM)
        assert process.wait(10) == 0
    assert count_rows(app.engine, ToolCall) == 3

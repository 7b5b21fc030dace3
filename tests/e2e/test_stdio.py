"""The stdio transport: a local host launches `aftersales serve --stdio` as a subprocess."""

import os
import sys

import pytest
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_local_host_reads_a_ticket_over_stdio(app, stories):
    env = {
        **os.environ,
        "AFTERSALES_DATABASE_URL": app.settings.resolved_database_url,
        "AFTERSALES_LOG_LEVEL": "WARNING",
    }
    params = StdioServerParameters(command=sys.executable, args=["-m", "aftersales", "serve", "--stdio"], env=env)
    ticket_id = stories["ticket_rejected"]["ticket_id"]
    async with Client(params) as client:
        result = await client.call_tool("after_sales_query_ticket", {"ticket_id": ticket_id})
    assert result.structured_content["stage"] == "closed"
    assert result.structured_content["status"] == "rejected"

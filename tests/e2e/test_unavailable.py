"""When the database cannot be reached: retryable tool errors, and /readyz 503."""

from datetime import timedelta

import httpx
import pytest

from aftersales.app import App
from aftersales.mcp.server import build_server
from aftersales.settings import Settings
from aftersales.web.app import create_web_app
from tests.support.clients import connect
from tests.support.episodes import admin_token

pytestmark = pytest.mark.anyio
NOWHERE = "postgresql+psycopg://nobody@127.0.0.1:1/none"  # port 1: nothing listens there


@pytest.fixture
def unreachable(tmp_path) -> App:
    return App(Settings(database_url=NOWHERE, data_dir=tmp_path, db_pool_timeout=timedelta(seconds=1)))


async def test_a_tool_call_while_the_database_is_down_is_a_retryable_error_that_says_when(unreachable):
    async with connect(build_server(unreachable)) as client:
        result = await client.call_tool("after_sales_query_ticket", {"ticket_id": "T-2026-0001"})
    assert result.is_error
    assert "nothing was read or changed" in result.content[0].text and "in 5 seconds" in result.content[0].text
    assert result.meta["aftersales/retryAfterSeconds"] == 5.0


async def test_readiness_is_503_while_the_database_is_down(unreachable):
    transport = httpx.ASGITransport(app=create_web_app(unreachable))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        assert (await http.get("/healthz")).status_code == 200
        ready = await http.get("/readyz")
    assert ready.status_code == 503 and ready.json()["detail"] == "database unreachable"


async def test_a_world_operation_while_the_database_is_down_is_a_503_that_says_to_retry(unreachable):
    transport = httpx.ASGITransport(app=create_web_app(unreachable))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        answer = await http.get("/admin/worlds", headers={"authorization": f"Bearer {admin_token(unreachable)}"})
    assert answer.status_code == 503 and answer.json()["error"] == "unavailable"
    assert "did not answer" in answer.json()["message"] and "Retry" in answer.json()["message"]

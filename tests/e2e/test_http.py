"""Over real HTTP: uvicorn on a free loopback port, the SDK client on both revisions, and the probes."""

import json

import httpx
import pytest
from jsonschema import Draft202012Validator

from tests.e2e.helpers import connect_http

pytestmark = [pytest.mark.anyio, pytest.mark.http]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_client_over_http_lists_the_tool_and_reads_a_seeded_ticket(http_url, token, mode, stories):
    ticket_id = stories["ticket_in_repair"]["ticket_id"]
    async with connect_http(http_url, token, mode) as client:
        assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        tools = {t.name: t for t in (await client.list_tools()).tools}
        result = await client.call_tool("after_sales_query_ticket", {"ticket_id": ticket_id})
    Draft202012Validator(tools["after_sales_query_ticket"].output_schema).validate(result.structured_content)
    assert json.loads(result.content[0].text) == result.structured_content
    assert result.structured_content["stage"] == "repair"


async def test_health_and_readiness_probes_answer_200_on_a_migrated_database(http_url):
    async with httpx.AsyncClient() as http:
        assert (await http.get(f"{http_url}/healthz")).json() == {"status": "ok"}
        ready = await http.get(f"{http_url}/readyz")
    assert ready.status_code == 200 and ready.json()["status"] == "ready"


async def test_readiness_is_503_when_the_database_is_behind_head(http_url, engine):
    with engine.begin() as connection:
        connection.exec_driver_sql("UPDATE alembic_version SET version_num = 'stale'")
    async with httpx.AsyncClient() as http:
        ready = await http.get(f"{http_url}/readyz")
    assert ready.status_code == 503 and "aftersales db upgrade" in ready.json()["detail"]

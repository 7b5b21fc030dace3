"""Over real HTTP: uvicorn on a free loopback port, the SDK client on both revisions, and the probes."""

import json
import os

import httpx
import pytest
from jsonschema import Draft202012Validator
from mcp.shared.exceptions import MCPError
from mcp_types import InputRequiredResult

from tests.support.clients import connect_http
from tests.support.creation import create_arguments
from tests.support.database import count_rows
from tests.support.elicitation import Person, second_round

pytestmark = [pytest.mark.anyio, pytest.mark.http]
TOOL = "after_sales_create_ticket"


def laptop_return(stories, key: str) -> dict:
    """A return of the VIP laptop without a refund method: it asks for the method and a confirmation."""
    return create_arguments(stories["vip_laptop_recent"]["order_id"], idempotency_key=key)


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
        assert (await http.get(f"{http_url}/healthz")).json() == {"status": "ok", "pid": os.getpid()}
        ready = await http.get(f"{http_url}/readyz")
    assert ready.status_code == 200 and ready.json()["status"] == "ready"


async def test_readiness_is_503_when_the_database_is_behind_head(http_url, engine):
    with engine.begin() as connection:
        connection.exec_driver_sql("UPDATE alembic_version SET version_num = 'stale'")
    async with httpx.AsyncClient() as http:
        ready = await http.get(f"{http_url}/readyz")
    assert ready.status_code == 503 and "aftersales db upgrade" in ready.json()["detail"]


async def test_over_http_a_return_without_a_method_goes_input_required_then_creates_one_ticket(
    http_url, token, app, stories
):
    call = laptop_return(stories, "http-key-0001")
    before = count_rows(app.engine)
    async with connect_http(http_url, token, elicitation_callback=Person()) as client:
        assert client.protocol_version == "2026-07-28"
        first = await client.session.call_tool(TOOL, call, allow_input_required=True)
        assert isinstance(first, InputRequiredResult) and first.result_type == "input_required"
        created = await second_round(client.session, TOOL, call, first)
        ticket_id = created.structured_content["ticket"]["ticket_id"]
        shown = await client.call_tool("after_sales_query_ticket", {"ticket_id": ticket_id})
        again = await client.call_tool(TOOL, call)
    assert count_rows(app.engine) == before + 1
    assert shown.structured_content["ticket_id"] == ticket_id
    assert (again.structured_content["outcome"], again.structured_content["ticket"]["ticket_id"]) == (
        "replayed",
        ticket_id,
    )
    assert count_rows(app.engine) == before + 1


async def test_over_http_on_2025_11_25_the_same_tool_elicits_with_a_plain_request(http_url, token, app, stories):
    call = laptop_return(stories, "http-key-0002")
    person, before = Person(), count_rows(app.engine)
    async with connect_http(http_url, token, mode="legacy", elicitation_callback=person) as client:
        assert client.protocol_version == "2025-11-25"
        result = await client.call_tool(TOOL, call)
        again = await client.call_tool(TOOL, call)
    assert person.questions == ["refund_method", "confirm"]
    assert result.structured_content["outcome"] == "created" and count_rows(app.engine) == before + 1
    assert again.structured_content["outcome"] == "replayed"
    assert again.structured_content["ticket"]["ticket_id"] == result.structured_content["ticket"]["ticket_id"]


async def test_over_http_a_request_state_with_one_character_changed_is_invalid_params(http_url, token, app, stories):
    call = laptop_return(stories, "http-key-0003")
    before = count_rows(app.engine)
    async with connect_http(http_url, token, elicitation_callback=Person()) as client:
        first = await client.session.call_tool(TOOL, call, allow_input_required=True)
        state = first.request_state
        edited = state[:10] + ("x" if state[10] != "x" else "y") + state[11:]
        with pytest.raises(MCPError) as refused:
            await second_round(client.session, TOOL, call, first, state=edited)
    assert refused.value.error.code == -32602 and count_rows(app.engine) == before


@pytest.mark.settings(allowed_hosts="shop.example.com", allowed_origins="https://shop.example.com")
async def test_on_loopback_a_listed_host_and_origin_pass_so_a_reverse_proxy_on_this_machine_is_served(http_url, token):
    client = {"name": "proxied", "version": "1"}
    opening = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": client}
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": opening}
    accept = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    proxied = {"Host": "shop.example.com", "Origin": "https://shop.example.com"}
    async with httpx.AsyncClient(headers=accept) as http:
        answers = [
            await http.post(f"{http_url}/mcp", json=initialize, headers=headers)
            for headers in ({}, proxied, {"Host": "other.example.com"}, {"Origin": "https://other.example.com"})
        ]
    direct, through_proxy, unlisted_host, unlisted_origin = (answer.status_code for answer in answers)
    assert direct == through_proxy == 200, answers[1].text
    assert unlisted_host == 421 and unlisted_origin == 403  # DNS-rebinding protection stays on for everything else

"""after_sales_query_ticket through the real MCP client, in memory, on both protocol revisions."""

import json

import pytest
from jsonschema import Draft202012Validator
from mcp.shared.exceptions import MCPError

from tests.support.clients import connect, leaks

TOOL = "after_sales_query_ticket"

pytestmark = pytest.mark.anyio


async def test_the_tool_is_listed_with_a_described_input_and_an_output_schema(server, mode):
    async with connect(server, mode) as client:
        [tool] = [t for t in (await client.list_tools()).tools if t.name == TOOL]
    field = tool.input_schema["properties"]["ticket_id"]
    assert field["pattern"] == r"^T-\d{4}-\d{4,}$" and field["examples"] and field["description"]
    assert tool.output_schema["required"] == [
        "ticket_id",
        "order_id",
        "item",
        "kind",
        "status",
        "stage",
        "refund",
        "channel",
        "created_at",
        "updated_at",
        "next_step",
        "timeline",
        "timeline_total",
    ]
    assert tool.annotations.read_only_hint is True and tool.annotations.open_world_hint is False
    assert "when" in tool.description.lower() and "do not use" in tool.description.lower()


async def test_a_seeded_ticket_comes_back_structured_and_as_the_same_json_text(server, mode, stories):
    ticket_id = stories["ticket_awaiting_return"]["ticket_id"]
    async with connect(server, mode) as client:
        [tool] = [t for t in (await client.list_tools()).tools if t.name == TOOL]
        result = await client.call_tool(TOOL, {"ticket_id": ticket_id})
    assert not result.is_error
    Draft202012Validator(tool.output_schema).validate(result.structured_content)
    assert json.loads(result.content[0].text) == result.structured_content
    ticket = result.structured_content
    assert (ticket["ticket_id"], ticket["stage"], ticket["status"]) == (ticket_id, "awaiting_return", "awaiting_return")
    assert ticket["refund"]["display"].startswith("¥")
    assert "ships the item back" in ticket["next_step"]
    assert ticket["timeline_total"] == len(ticket["timeline"]) and ticket["timeline"][0]["event"] == "created"


async def test_a_malformed_number_is_an_error_that_quotes_it_gives_the_format_and_says_to_ask(server, mode):
    async with connect(server, mode) as client:
        result = await client.call_tool(TOOL, {"ticket_id": "T-26-42"})
    text = result.content[0].text
    assert result.is_error
    assert '"T-26-42"' in text and "T-2026-0042" in text and "ask them" in text
    assert leaks(text) == []


async def test_an_unknown_number_is_an_error_that_quotes_it_and_says_what_to_check(server, mode):
    async with connect(server, mode) as client:
        result = await client.call_tool(TOOL, {"ticket_id": "T-2026-9999999"})
    text = result.content[0].text
    assert result.is_error
    assert '"T-2026-9999999"' in text and "Check the number with the customer" in text
    assert leaks(text) == []


async def test_calling_a_tool_that_does_not_exist_is_a_protocol_error(server, mode):
    async with connect(server, mode) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("after_sales_delete_everything", {})
    assert raised.value.error.code == -32602


async def test_the_server_introduces_itself_with_instructions(server, mode):
    async with connect(server, mode) as client:
        assert "after_sales_query_ticket" in (client.instructions or "")

"""after_sales_estimate_refund through the real MCP client."""

import json
import uuid
from datetime import timedelta

import pytest
from jsonschema import Draft202012Validator

from tests.support.clients import connect

pytestmark = pytest.mark.anyio
TOOL = "after_sales_estimate_refund"


async def test_an_estimate_returns_a_breakdown_that_adds_up_and_a_uuid4_quote(server, mode, stories):
    async with connect(server, mode) as client:
        [tool] = [t for t in (await client.list_tools()).tools if t.name == TOOL]
        result = await client.call_tool(
            TOOL,
            {"order_id": stories["vip_laptop_recent"]["order_id"], "line_no": 1, "reason_code": "no_longer_needed"},
        )
    quote = result.structured_content
    Draft202012Validator(tool.output_schema).validate(quote)
    assert json.loads(result.content[0].text) == quote
    assert quote["item_amount"] - quote["restocking_fee"] + quote["shipping_refund"] == quote["total"] == 1169910
    assert uuid.UUID(quote["quote_id"]).version == 4
    assert tool.annotations.read_only_hint is True and tool.annotations.open_world_hint is False
    assert "held for 30 minutes" in tool.description and "creates no ticket and moves no money" in tool.description


@pytest.mark.settings(quote_ttl=timedelta(seconds=45))
async def test_a_quote_lifetime_under_a_minute_is_described_in_seconds(server):
    async with connect(server) as client:
        [tool] = [t for t in (await client.list_tools()).tools if t.name == TOOL]
    assert "quotes are held for 45 seconds," in tool.description and "0 minutes" not in tool.description


async def test_the_reason_enum_and_bounds_are_in_the_input_schema(server):
    async with connect(server) as client:
        [tool] = [t for t in (await client.list_tools()).tools if t.name == TOOL]
    properties = tool.input_schema["properties"]
    assert properties["reason_code"]["enum"] == [
        "damaged",
        "defective",
        "wrong_item",
        "not_as_described",
        "missing_parts",
        "no_longer_needed",
        "late_delivery",
        "other",
    ]
    assert properties["line_no"]["minimum"] == 1 and properties["quantity"]["minimum"] == 1
    assert properties["quantity"]["default"] == 1
    assert all(field.get("examples") and field.get("description") for field in properties.values())


async def test_a_business_rule_error_is_a_tool_error_naming_its_rule_code(server, mode, stories):
    async with connect(server, mode) as client:
        result = await client.call_tool(
            TOOL,
            {
                "order_id": stories["laptop_past_window_in_warranty"]["order_id"],
                "line_no": 1,
                "reason_code": "defective",
            },
        )
    # A client without forms, on either revision, gets the rule's code in the error's structured content.
    assert result.is_error and result.structured_content == {"error_kind": "rule", "error_code": "return_window_closed"}

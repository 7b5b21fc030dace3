"""after_sales_get_order through the real MCP client, on both protocol revisions."""

import json

import pytest
from jsonschema import Draft202012Validator

from aftersales.domain.callers import Caller
from tests.support.clients import connect, connect_http, leaks
from tests.support.creation import create_arguments

pytestmark = pytest.mark.anyio
TOOL = "after_sales_get_order"


async def test_an_order_comes_back_with_each_lines_options_structured_and_as_the_same_json_text(server, mode, stories):
    story = stories["laptop_past_window_in_warranty"]
    async with connect(server, mode) as client:
        [tool] = [t for t in (await client.list_tools()).tools if t.name == TOOL]
        result = await client.call_tool(TOOL, {"order_id": story["order_id"]})
    assert not result.is_error and tool.annotations.read_only_hint is True
    Draft202012Validator(tool.output_schema).validate(result.structured_content)
    assert json.loads(result.content[0].text) == result.structured_content
    [line] = result.structured_content["lines"]
    options = {o["kind"]: o for o in line["options"]}
    assert [kind for kind, o in options.items() if o["possible"]] == ["repair"]
    assert options["exchange"]["why_not_code"] == "return_window_closed" and options["exchange"]["why_not"]
    assert (options["repair"]["why_not"], options["repair"]["why_not_code"]) == (None, None)
    assert line["return_window_ends"] < result.structured_content["as_of"] < line["warranty_ends"]


async def test_the_options_change_once_a_ticket_holds_the_line(server, mode, stories):
    order_id = stories["email_only_headphones"]["order_id"]
    async with connect(server, mode) as client:
        before = (await client.call_tool(TOOL, {"order_id": order_id})).structured_content["lines"][0]
        created = await client.call_tool(
            "after_sales_create_ticket", create_arguments(order_id, kind="exchange", reason_code="damaged")
        )
        after = (await client.call_tool(TOOL, {"order_id": order_id})).structured_content["lines"][0]
    ticket_id = created.structured_content["ticket"]["ticket_id"]
    assert all(o["possible"] for o in before["options"]) and before["open_ticket_id"] is None
    assert after["open_ticket_id"] == ticket_id and after["units_held"] == 1 and after["units_available"] == 0
    assert all(not o["possible"] and ticket_id in o["why_not"] for o in after["options"])


@pytest.mark.http
async def test_over_http_an_unknown_order_is_a_tool_error_saying_what_to_ask(http_url, token, mode):
    async with connect_http(http_url, token, mode) as client:
        result = await client.call_tool(TOOL, {"order_id": "O-2026-999999"})
    text = result.content[0].text
    assert result.is_error and result.meta["aftersales/error"] == "not_found"
    assert 'No order numbered "O-2026-999999" exists.' in text and "Ask the customer" in text and leaks(text) == []


async def test_a_caller_without_the_read_scope_is_refused_naming_it(server, stories):
    async with connect(server, caller=Caller("nobody", frozenset())) as client:
        result = await client.call_tool(TOOL, {"order_id": stories["vip_laptop_recent"]["order_id"]})
    assert result.is_error and "lacks the scope tickets:read" in result.content[0].text


@pytest.mark.settings(rate_read_per_minute=6, rate_read_burst=2)
async def test_the_lookups_spend_the_read_limit_and_leave_the_write_limit_alone(server, stories):
    story = stories["email_only_headphones"]
    async with connect(server) as client:
        found = await client.call_tool("after_sales_find_orders", {"email": story["email"]})
        shown = await client.call_tool(TOOL, {"order_id": story["order_id"]})
        listed = await client.call_tool("after_sales_list_tickets", {"customer_id": story["customer_id"]})
        created = await client.call_tool(
            "after_sales_create_ticket", create_arguments(story["order_id"], kind="repair")
        )
    assert not found.is_error and not shown.is_error
    assert (
        listed.is_error and listed.meta["aftersales/error"] == "rate_limited" and "read calls" in listed.content[0].text
    )
    assert not created.is_error

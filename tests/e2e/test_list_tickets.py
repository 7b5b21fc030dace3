"""after_sales_list_tickets through the real MCP client, on both protocol revisions."""

import json

import pytest
from jsonschema import Draft202012Validator

from tests.support.clients import connect, connect_http

pytestmark = pytest.mark.anyio
TOOL = "after_sales_list_tickets"


async def test_a_customers_tickets_come_back_as_query_ticket_summarises_them(server, mode, stories):
    story = stories["email_only_return_under_review"]
    async with connect(server, mode) as client:
        [tool] = [t for t in (await client.list_tools()).tools if t.name == TOOL]
        result = await client.call_tool(TOOL, {"customer_id": story["customer_id"]})
        queried = await client.call_tool("after_sales_query_ticket", {"ticket_id": story["ticket_id"]})
    assert not result.is_error and tool.annotations.read_only_hint is True
    Draft202012Validator(tool.output_schema).validate(result.structured_content)
    assert json.loads(result.content[0].text) == result.structured_content
    listed = {t["ticket_id"]: t for t in result.structured_content["tickets"]}
    assert set(listed) == {story["ticket_id"], stories["email_only_drone_in_repair"]["ticket_id"]}
    summary = {k: v for k, v in queried.structured_content.items() if k not in ("timeline", "timeline_total")}
    assert listed[story["ticket_id"]] == summary


@pytest.mark.http
async def test_over_http_an_orders_tickets_page_with_the_cursor(http_url, token, mode, baseline):
    tickets = baseline.tables["tickets"]
    busy = max({t["order_id"] for t in tickets}, key=lambda order: sum(t["order_id"] == order for t in tickets))
    expected = sorted((t for t in tickets if t["order_id"] == busy), key=lambda t: (t["created_at"], t["id"]))
    seen, cursor = [], None
    async with connect_http(http_url, token, mode) as client:
        while True:
            arguments = {"order_id": busy, "limit": 1} | ({"cursor": cursor} if cursor else {})
            page = (await client.call_tool(TOOL, arguments)).structured_content
            seen += [t["ticket_id"] for t in page["tickets"]]
            if not (cursor := page["next_cursor"]):
                break
    assert seen == [t["id"] for t in reversed(expected)] and len(seen) >= 2


async def test_a_customer_without_tickets_gets_an_empty_page_saying_what_to_ask(server, mode, stories):
    async with connect(server, mode) as client:
        result = await client.call_tool(TOOL, {"customer_id": stories["vip_laptop_recent"]["customer_id"]})
    page = result.structured_content
    assert not result.is_error and page["tickets"] == [] and page["next_cursor"] is None
    assert "ask for its number (T-YYYY-NNNN)" in page["next_step"]


async def test_both_scopes_at_once_or_a_cursor_of_another_listing_are_argument_errors(server, mode, stories):
    story = stories["vip_laptop_recent"]
    async with connect(server, mode) as client:
        both = await client.call_tool(TOOL, {"customer_id": story["customer_id"], "order_id": story["order_id"]})
        orders = await client.call_tool("after_sales_find_orders", {"customer_id": story["customer_id"], "limit": 1})
        foreign = await client.call_tool(
            TOOL, {"customer_id": story["customer_id"], "cursor": orders.structured_content["next_cursor"]}
        )
    assert both.is_error and "with 2 of customer_id or order_id at once" in both.content[0].text
    assert foreign.is_error and foreign.meta["aftersales/error"] == "invalid_arguments"
    assert "belongs to another search" in foreign.content[0].text

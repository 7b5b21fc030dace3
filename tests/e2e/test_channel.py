"""The channel a ticket came from, through the real MCP client on both revisions: taken by create and cancel,
stored, shown by query and the lists, part of what an idempotency key compares, and the only routable field."""

import pytest
from mcp.shared.inbound import X_MCP_HEADER_KEY, find_invalid_x_mcp_header, x_mcp_header_map

from tests.support.cancellation import cancel_arguments
from tests.support.clients import connect
from tests.support.creation import create_arguments
from tests.support.elicitation import Person

pytestmark = pytest.mark.anyio
CREATE, CANCEL, QUERY = "after_sales_create_ticket", "after_sales_cancel_ticket", "after_sales_query_ticket"
# The only input a gateway may see in a header: a bounded vocabulary, nothing a person typed or is identified by.
ROUTABLE = {(CREATE, "channel"): "Channel", (CANCEL, "channel"): "Channel"}


def tshirt_return(stories, **changes) -> dict:
    """A small store-credit refund: nothing to confirm, nothing to ask."""
    order_id = stories["cheap_tshirts_in_window"]["order_id"]
    return create_arguments(order_id, reason_code="damaged", refund_method="store_credit", **changes)


async def test_the_channel_a_ticket_was_raised_in_is_stored_and_shown_by_query_and_the_list(server, mode, stories):
    async with connect(server, mode) as client:
        created = await client.call_tool(CREATE, tshirt_return(stories, channel="miniprogram"))
        ticket = created.structured_content["ticket"]
        shown = await client.call_tool(QUERY, {"ticket_id": ticket["ticket_id"]})
        listed = await client.call_tool("after_sales_list_tickets", {"order_id": ticket["order_id"]})
    assert not created.is_error and ticket["channel"] == "miniprogram"
    assert shown.structured_content == ticket  # read back from the database, exactly as created
    assert ticket["timeline"][0]["event"] == "created" and ticket["timeline"][0]["channel"] == "miniprogram"
    [summary] = [t for t in listed.structured_content["tickets"] if t["ticket_id"] == ticket["ticket_id"]]
    assert summary["channel"] == "miniprogram"


async def test_a_ticket_raised_without_a_channel_shows_null_and_a_null_channel_is_refused(server, mode, stories):
    async with connect(server, mode) as client:
        created = await client.call_tool(CREATE, tshirt_return(stories))
        refused = await client.call_tool(CREATE, tshirt_return(stories, channel=None))
    assert not created.is_error and created.structured_content["ticket"]["channel"] is None
    assert {event["channel"] for event in created.structured_content["ticket"]["timeline"]} == {None}
    assert refused.is_error and refused.meta["aftersales/error"] == "invalid_arguments"
    assert "channel: " in refused.content[0].text


async def test_a_cancellation_records_its_own_channel_on_its_events_and_the_ticket_keeps_where_it_was_raised(
    server, mode, stories
):
    async with connect(server, mode, elicitation_callback=Person()) as client:
        created = await client.call_tool(CREATE, tshirt_return(stories, channel="app"))
        ticket_id = created.structured_content["ticket"]["ticket_id"]
        result = await client.call_tool(CANCEL, cancel_arguments(ticket_id, channel="web"))
        shown = (await client.call_tool(QUERY, {"ticket_id": ticket_id})).structured_content
    assert not result.is_error and result.structured_content["outcome"] == "cancelled"
    assert shown["channel"] == "app" and shown["status"] == "cancelled"
    assert [(e["event"], e["channel"]) for e in shown["timeline"][-2:]] == [("note", "web"), ("cancelled", "web")]


async def test_a_retry_with_the_same_key_must_say_the_same_channel_as_any_other_argument(server, mode, stories):
    call = tshirt_return(stories, channel="web")
    async with connect(server, mode) as client:
        first = await client.call_tool(CREATE, call)
        again = await client.call_tool(CREATE, call)
        other = await client.call_tool(CREATE, call | {"channel": "app"})
        unsaid = await client.call_tool(CREATE, {k: v for k, v in call.items() if k != "channel"})
    assert first.structured_content["outcome"] == "created" and again.structured_content["outcome"] == "replayed"
    assert again.structured_content["ticket"]["channel"] == "web"
    for refused in (other, unsaid):  # only the channel differs, so the key is refused as reused
        assert refused.is_error and refused.structured_content["error_code"] == "idempotency_key_reused"


async def test_only_the_channel_is_ever_mirrored_into_a_header_on_any_tool(server):
    async with connect(server) as client:
        tools = (await client.list_tools()).tools
    annotated = {}
    for tool in tools:
        assert find_invalid_x_mcp_header(tool.input_schema) is None, tool.name  # else clients drop the tool
        annotated |= {
            (tool.name, ".".join(path)): header for path, header in x_mcp_header_map(tool.input_schema).items()
        }
        for name, field in tool.input_schema["properties"].items():
            # Whatever a later change annotates must be a closed set of values: never free text, a name, a phone,
            # an email or an account, which every proxy and log on the way would see.
            if X_MCP_HEADER_KEY in field:
                assert field.get("enum") and "pattern" not in field and "maxLength" not in field, (tool.name, name)
    assert annotated == ROUTABLE

"""Errors through the real MCP client: ones the model can act on, protocol errors by the spec, rate limits."""

import logging

import pytest
from mcp.shared.exceptions import MCPError

from aftersales.domain.callers import ALL_SCOPES, Caller
from aftersales.services import ticket_queries
from tests.support.clients import connect, connect_http, leaks

pytestmark = pytest.mark.anyio
FIVE_BAD = {
    "order_id": "O-26-1",  # pattern
    "line_no": 0,  # range
    "kind": "refund",  # enum
    "reason_code": "defective",
    "description": "bad",  # length
    "idempotency_key": "snapshot-key-01",
    "quantity": "two",  # type
}


def assert_names_all_five(text: str) -> None:
    assert "5 invalid arguments" in text
    assert 'order_id: received "O-26-1", which does not match the pattern' in text
    assert "line_no: received 0; it must be at least 1" in text
    assert 'kind: received "refund"; the allowed values are refund_only, return_and_refund, exchange, repair' in text
    assert "description: received a text of 3 characters; it must be between 5 and 500 characters long" in text
    assert 'quantity: received "two" (a string); it must be an integer' in text
    assert leaks(text) == []


async def test_every_invalid_field_of_a_create_is_named_in_one_error(server, mode):
    async with connect(server, mode) as client:
        result = await client.call_tool("after_sales_create_ticket", FIVE_BAD)
    assert result.is_error
    assert_names_all_five(result.content[0].text)


async def test_over_http_the_same_call_gets_the_same_single_error_and_an_unknown_tool_is_invalid_params(
    http_url, token
):
    async with connect_http(http_url, token) as client:
        result = await client.call_tool("after_sales_create_ticket", FIVE_BAD)
        with pytest.raises(MCPError) as unknown:
            await client.call_tool("after_sales_refund_everything", {})
    assert_names_all_five(result.content[0].text)
    assert unknown.value.error.code == -32602


async def test_an_unexpected_fault_is_a_32603_with_a_reference_whose_traceback_is_in_the_log(
    server, mode, monkeypatch, caplog
):
    def broken(*_args, **_kwargs):
        raise RuntimeError("disk on fire at /srv/secret/path")

    monkeypatch.setattr(ticket_queries, "query_ticket", broken)
    caplog.set_level(logging.ERROR, logger="aftersales.tools")
    async with connect(server, mode) as client:
        with pytest.raises(MCPError) as fault:
            await client.call_tool("after_sales_query_ticket", {"ticket_id": "T-2026-0001"})
    message = fault.value.error.message
    assert fault.value.error.code == -32603 and "reference" in message
    assert "disk on fire" not in message and "/srv" not in message
    reference = message.split("reference ")[1].split(")")[0]
    assert any(reference in r.getMessage() and r.exc_info for r in caplog.records)


@pytest.mark.settings(rate_read_per_minute=6, rate_read_burst=3)
async def test_a_burst_over_the_read_limit_gets_retryable_errors_while_another_caller_is_served(server):
    other = Caller("other-bot", frozenset(ALL_SCOPES))
    call = {"ticket_id": "T-2026-0001"}
    async with connect(server) as client:
        results = [await client.call_tool("after_sales_query_ticket", call) for _ in range(5)]
    async with connect(server, caller=other) as client:
        theirs = await client.call_tool("after_sales_query_ticket", call)
    refused = [r for r in results if r.is_error]
    assert [r.is_error for r in results] == [False, False, False, True, True]
    assert all("retryable: wait" in r.content[0].text and "seconds" in r.content[0].text for r in refused)
    assert all(0 < r.meta["aftersales/retryAfterSeconds"] <= 10 for r in refused)
    assert not theirs.is_error


@pytest.mark.settings(rate_read_per_minute=6, rate_read_burst=3)
async def test_reading_tickets_and_orders_as_resources_spends_the_read_limit_the_read_tools_spend(
    server, mode, stories
):
    ticket, order = stories["ticket_in_repair"]["ticket_id"], stories["vip_laptop_recent"]["order_id"]
    async with connect(server, mode) as client:
        await client.read_resource(f"aftersales://tickets/{ticket}")
        await client.read_resource(f"aftersales://orders/{order}")
        await client.call_tool("after_sales_query_ticket", {"ticket_id": ticket})
        with pytest.raises(MCPError) as refused:
            await client.read_resource(f"aftersales://orders/{order}")
        queried = await client.call_tool("after_sales_query_ticket", {"ticket_id": ticket})
        policy = await client.read_resource("aftersales://policy")
    error = refused.value.error
    assert error.code == -32602 and error.data["aftersales/error"] == "rate_limited"
    assert 0 < error.data["aftersales/retryAfterSeconds"] <= 10 and "retryable: wait" in error.message
    assert queried.is_error and queried.meta["aftersales/error"] == "rate_limited"
    assert policy.contents[0].text.startswith("# After-sales policy")

"""What the inner test files of the plugin's own tests share: imports, a task's facts, a call, a common test."""

PRELUDE = """
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

TSHIRTS = {"order_id": "O-2026-001410", "line_no": 1, "reason_code": "no_longer_needed"}
CREATED = {"tables": {"tickets": {"added": [{"row": {"order_id": "O-2026-001410", "kind": "return_and_refund",
           "refund_method": "store_credit", "status": "approved"}}]}},
           "only": ["tickets", "ticket_events", "ticket_sequences", "quotes", "idempotency_records"]}
CUSTOMER = {"opening": "Hi", "knows": {}, "story": "s", "wants": {"action": "open_ticket"},
            "forms": {"after_sales_create_ticket:refund_method":
                      {"action": "accept", "content": {"refund_method": "store_credit"}}}}


async def call(world, *calls, callback=None):
    headers = {"Authorization": f"Bearer {world.token}"}
    async with httpx2.AsyncClient(headers=headers) as http, Client(
        streamable_http_client(world.url, http_client=http), elicitation_callback=callback
    ) as client:
        return [await client.call_tool(name, arguments) for name, arguments in calls]


@pytest.mark.anyio
async def test_advancing_the_clock_expires_a_quote(world):
    (quote,) = await call(world, ("after_sales_estimate_refund", TSHIRTS))
    world.advance("31m")
    arguments = {**TSHIRTS, "kind": "return_and_refund", "description": "Not my style at all.",
                 "refund_method": "store_credit", "quote_id": quote.structured_content["quote_id"],
                 "idempotency_key": "plugin-test-02"}
    (late,) = await call(world, ("after_sales_create_ticket", arguments))
    assert late.is_error and "expired" in late.content[0].text
"""

"""The aftersales://orders/{order_id} resource through the real client on both revisions: the get_order tool's view,
and errors a host can act on as JSON-RPC -32602."""

import json

import pytest
from freezegun import freeze_time
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from aftersales.clock import now
from aftersales.domain.callers import WRITE, Caller
from tests.support.clients import connect

pytestmark = pytest.mark.anyio


async def refused(client, uri: str) -> MCPError:
    with pytest.raises(MCPError) as error:
        await client.read_resource(uri)
    return error.value


async def test_an_order_reads_as_exactly_what_the_get_order_tool_returns(server, mode, stories):
    order_id = stories["laptop_past_window_in_warranty"]["order_id"]
    with freeze_time(now(), real_asyncio=True):  # as_of is the time of reading: one instant for both reads
        async with connect(server, mode) as client:
            [contents] = (await client.read_resource(f"aftersales://orders/{order_id}")).contents
            shown = await client.call_tool("after_sales_get_order", {"order_id": order_id})
    assert contents.mime_type == "application/json" and not shown.is_error
    assert json.loads(contents.text) == shown.structured_content
    [line] = shown.structured_content["lines"]
    assert [o["kind"] for o in line["options"] if o["possible"]] == ["repair"]


async def test_an_unknown_or_malformed_order_number_is_invalid_params_saying_what_to_ask(server, mode):
    async with connect(server, mode) as client:
        unknown = await refused(client, "aftersales://orders/O-2026-999999")
        malformed = await refused(client, "aftersales://orders/O-26-42")
    assert (unknown.error.code, malformed.error.code) == (INVALID_PARAMS, INVALID_PARAMS)
    assert unknown.error.message.startswith('No order numbered "O-2026-999999" exists.')
    assert malformed.error.message.startswith('Order number "O-26-42" is not in the format O-YYYY-NNNNNN')
    assert "after_sales_find_orders" in malformed.error.message
    assert unknown.error.data == {"aftersales/error": "not_found"}


async def test_a_caller_without_the_read_scope_is_told_which_scope_it_lacks(server, mode, stories):
    writer = Caller("writer-bot", frozenset({WRITE}))
    async with connect(server, mode, caller=writer) as client:
        error = await refused(client, f"aftersales://orders/{stories['vip_laptop_recent']['order_id']}")
    assert error.error.code == INVALID_PARAMS and "lacks the scope tickets:read" in error.error.message

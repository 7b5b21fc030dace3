"""The aftersales://tickets/{ticket_id} resource through the real client on both revisions: the query tool's view,
and errors a host can act on as JSON-RPC -32602."""

import json

import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from aftersales.domain.callers import WRITE, Caller
from tests.support.clients import connect

pytestmark = pytest.mark.anyio


async def refused(client, uri: str) -> MCPError:
    with pytest.raises(MCPError) as error:
        await client.read_resource(uri)
    return error.value


async def test_a_ticket_reads_as_exactly_what_the_query_tool_returns(server, mode, stories):
    ticket_id = stories["ticket_in_repair"]["ticket_id"]
    async with connect(server, mode) as client:
        [contents] = (await client.read_resource(f"aftersales://tickets/{ticket_id}")).contents
        queried = await client.call_tool("after_sales_query_ticket", {"ticket_id": ticket_id})
    assert contents.mime_type == "application/json"
    assert json.loads(contents.text) == queried.structured_content and queried.structured_content["stage"] == "repair"


async def test_an_unknown_or_malformed_ticket_number_is_invalid_params_saying_what_to_ask(server, mode):
    async with connect(server, mode) as client:
        unknown = await refused(client, "aftersales://tickets/T-2026-9999")
        malformed = await refused(client, "aftersales://tickets/T-26-42")
    assert (unknown.error.code, malformed.error.code) == (INVALID_PARAMS, INVALID_PARAMS)
    assert unknown.error.message.startswith('No ticket numbered "T-2026-9999" exists.')
    assert malformed.error.message.startswith('Ticket number "T-26-42" is not in the format T-YYYY-NNNN')
    assert unknown.error.data == {"aftersales/error": "not_found"}


async def test_a_caller_without_the_read_scope_is_told_which_scope_it_lacks(server, mode, stories):
    writer = Caller("writer-bot", frozenset({WRITE}))
    async with connect(server, mode, caller=writer) as client:
        error = await refused(client, f"aftersales://tickets/{stories['ticket_in_repair']['ticket_id']}")
    assert error.error.code == INVALID_PARAMS and "lacks the scope tickets:read" in error.error.message

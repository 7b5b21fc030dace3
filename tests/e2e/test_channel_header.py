"""The channel as a header over real HTTP: the SDK's client mirrors it as Mcp-Param-Channel on 2026-07-28, and the
server refuses (400, JSON-RPC -32020 HeaderMismatch, as the transport spec says) a header the body does not bear out."""

import json

import httpx
import pytest
from mcp_types import HEADER_MISMATCH
from prometheus_client.parser import text_string_to_metric_families

from tests.support.cancellation import cancel_arguments
from tests.support.clients import connect_http
from tests.support.creation import create_arguments
from tests.support.database import count_rows

pytestmark = [pytest.mark.anyio, pytest.mark.http]
CREATE = "after_sales_create_ticket"
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def tshirt_return(stories, **changes) -> dict:
    """A small store-credit refund: nothing to confirm, nothing to ask."""
    order_id = stories["cheap_tshirts_in_window"]["order_id"]
    return create_arguments(order_id, reason_code="damaged", refund_method="store_credit", **changes)


def param_headers(requests: list, tool: str) -> list[dict[str, str]]:
    """The Mcp-Param-* headers of each tools/call of `tool` the client sent."""
    calls = [r for r in requests if r.method == "POST" and json.loads(r.content).get("method") == "tools/call"]
    return [
        {k.lower(): v for k, v in r.headers.items() if k.lower().startswith("mcp-param-")}
        for r in calls
        if json.loads(r.content)["params"]["name"] == tool
    ]


async def test_the_sdks_client_mirrors_the_channel_into_a_header_the_server_takes_it_and_metrics_count_it(
    http_url, token, stories
):
    sent: list = []
    async with connect_http(http_url, token, sent=sent) as client:
        await client.list_tools()  # the client learns which arguments are mirrored from the listing
        created = await client.call_tool(CREATE, tshirt_return(stories, channel="miniprogram"))
        ticket_id = created.structured_content["ticket"]["ticket_id"]
        cancelled = await client.call_tool("after_sales_cancel_ticket", cancel_arguments(ticket_id, channel="web"))
        unsaid = await client.call_tool(CREATE, tshirt_return(stories))  # the line is free again
    assert not created.is_error and created.structured_content["ticket"]["channel"] == "miniprogram"
    assert not cancelled.is_error and not unsaid.is_error
    assert param_headers(sent, CREATE) == [{"mcp-param-channel": "miniprogram"}, {}]
    assert param_headers(sent, "after_sales_cancel_ticket") == [{"mcp-param-channel": "web"}]
    async with httpx.AsyncClient() as http:
        text = (await http.get(f"{http_url}/metrics")).text
    tickets = {
        (sample.labels["change"], sample.labels["channel"]): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "aftersales_tickets_total"
    }
    assert {labels: n for labels, n in tickets.items() if n} == {
        ("opened", "miniprogram"): 1,
        ("opened", "unknown"): 1,
        ("cancelled", "web"): 1,
    }
    assert len(tickets) == 2 * 4  # opened and cancelled, by app, web, miniprogram and unknown, from the start


async def test_a_channel_header_the_body_does_not_bear_out_is_refused_before_anything_is_written(
    http_url, token, app, stories
):
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Authorization": f"Bearer {token}",
        "Mcp-Method": "tools/call",
        "Mcp-Name": CREATE,
    }
    before = count_rows(app.engine)
    answers = {}
    async with httpx.AsyncClient(timeout=10) as http:
        for case, channel, header in [
            ("mismatch", "web", {"Mcp-Param-Channel": "app"}),
            ("header without a body value", None, {"Mcp-Param-Channel": "app"}),
            ("body value without the header", "web", {}),
        ]:
            arguments = tshirt_return(stories, **({"channel": channel} if channel else {}))
            call = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": CREATE, "arguments": arguments},
            }
            call["params"]["_meta"] = ENVELOPE
            answer = await http.post(f"{http_url}/mcp", json=call, headers=headers | header)
            answers[case] = (answer.status_code, answer.json()["error"]["code"], answer.json()["error"]["message"])
    assert {case: answer[:2] for case, answer in answers.items()} == dict.fromkeys(answers, (400, HEADER_MISMATCH))
    assert "Mcp-Param-Channel" in answers["mismatch"][2] and "channel" in answers["mismatch"][2]
    assert count_rows(app.engine) == before

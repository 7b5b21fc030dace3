"""after_sales_estimate_refund and caller authentication through the real MCP client."""

import json
import logging
import uuid
from datetime import timedelta

import httpx
import pytest
from jsonschema import Draft202012Validator

from aftersales.app import App
from aftersales.cli.main import main
from aftersales.domain.callers import READ, Caller
from aftersales.mcp.server import build_server
from tests.e2e.helpers import connect, connect_http

pytestmark = pytest.mark.anyio
TOOL = "after_sales_estimate_refund"
READER = Caller("reader-bot", frozenset({READ}))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


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


async def test_a_quote_lifetime_under_a_minute_is_described_in_seconds(app):
    short = App(app.settings.model_copy(update={"quote_ttl": timedelta(seconds=45)}))
    async with connect(build_server(short)) as client:
        [tool] = [t for t in (await client.list_tools()).tools if t.name == TOOL]
    short.close()
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


async def test_a_business_rule_error_is_a_tool_error_with_three_parts(server, mode, stories):
    async with connect(server, mode) as client:
        result = await client.call_tool(
            TOOL,
            {
                "order_id": stories["laptop_past_window_in_warranty"]["order_id"],
                "line_no": 1,
                "reason_code": "defective",
            },
        )
    assert result.is_error
    assert "closed on" in result.content[0].text and "warranty repair is still possible" in result.content[0].text


async def test_a_caller_without_the_scope_gets_a_tool_error_naming_it(server):
    async with connect(server, caller=Caller("nobody", frozenset())) as client:
        result = await client.call_tool("after_sales_query_ticket", {"ticket_id": "T-2026-0001"})
    assert result.is_error and "lacks the scope tickets:read" in result.content[0].text


async def test_over_http_a_request_without_a_token_is_401_with_a_bearer_challenge(http_url):
    async with httpx.AsyncClient() as http:
        answer = await http.post(f"{http_url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"].startswith("Bearer ")
    assert "aftersales token issue" in answer.json()["what_to_do"]


@pytest.mark.parametrize("bad", ["not-a-token", "eyJzdWIiOiJ4In0.forged"])
async def test_over_http_a_malformed_or_forged_token_is_401(http_url, bad):
    async with httpx.AsyncClient() as http:
        answer = await http.post(
            f"{http_url}/mcp",
            headers={"Authorization": f"Bearer {bad}"},
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        )
    assert answer.status_code == 401 and "not signed by this server" in answer.json()["error_description"]


async def test_over_http_an_expired_token_is_401(http_url, issue_token):
    from datetime import timedelta

    expired = issue_token(ttl=timedelta(seconds=-1))
    async with httpx.AsyncClient() as http:
        answer = await http.post(
            f"{http_url}/mcp",
            headers={"Authorization": f"Bearer {expired}"},
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        )
    assert answer.status_code == 401 and "expired" in answer.json()["error_description"]


async def test_a_token_from_the_cli_works_over_http_and_is_never_logged_or_returned(
    http_url, app, stories, capsys, caplog, monkeypatch
):
    monkeypatch.setenv("AFTERSALES_DATA_DIR", str(app.settings.data_dir))
    assert main(["token", "issue", "--caller", "support-bot"]) == 0
    token = capsys.readouterr().out.strip()
    caplog.set_level(logging.DEBUG)
    async with connect_http(http_url, token) as client:
        result = await client.call_tool(
            TOOL, {"order_id": stories["vip_laptop_recent"]["order_id"], "line_no": 1, "reason_code": "defective"}
        )
    assert not result.is_error
    assert token not in caplog.text and token not in result.content[0].text
    assert app.caller_keys[0] not in caplog.text

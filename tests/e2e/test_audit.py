"""The audit through the real MCP client: arguments kept redacted and cut, and hostile calls never silence it."""

import base64
import hashlib
import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from sqlalchemy import Row, select

from aftersales.app import App
from aftersales.storage.models import ToolCall
from tests.support.clients import connect
from tests.support.creation import create_arguments

pytestmark = pytest.mark.anyio
QUERY = "after_sales_query_ticket"
FIND = "after_sales_find_orders"
SURROGATE = "T-2026-0357\ud800"
LONE_ESCAPE = re.compile(rb"(?<!\\)(\\u[dD][89a-fA-F][0-9a-fA-F]{2})")


def recorded(app: App) -> list[Row]:
    """Every audit record, oldest first, once the queue is written."""
    app.audit.flush()
    columns = (
        ToolCall.tool,
        ToolCall.caller,
        ToolCall.outcome,
        ToolCall.error_kind,
        ToolCall.arguments_valid,
        ToolCall.arguments,
        ToolCall.input_round,
        ToolCall.replayed,
    )
    with app.uow() as uow:
        return list(uow.session.execute(select(*columns).order_by(ToolCall.id)))


class RawEscapes(httpx2.AsyncBaseTransport):
    """Sends each `\\\\u` the client wrote as `\\u`, a JSON escape no Python str can encode; reads replies leniently.

    A lone surrogate escape is valid JSON text and a JavaScript client sends and reads it; the Python client does
    neither, so this transport does its part: raw escapes out, and surrogate escapes in replies read as plain text.
    """

    def __init__(self) -> None:
        self._inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = (await request.aread()).replace(b"\\\\u", b"\\u")
        headers = [(name, value) for name, value in request.headers.raw if name.lower() != b"content-length"]
        raw = httpx2.Request(request.method, request.url, headers=headers, content=body, extensions=request.extensions)
        response = await self._inner.handle_async_request(raw)
        if response.headers.get("content-type") != "application/json":
            return response
        lenient = LONE_ESCAPE.sub(rb"\\\1", await response.aread())
        headers = [(name, value) for name, value in response.headers.raw if name.lower() != b"content-length"]
        return httpx2.Response(response.status_code, headers=headers, content=lenient)

    async def aclose(self) -> None:
        await self._inner.aclose()


@asynccontextmanager
async def connect_raw(url: str, token: str, mode: str) -> AsyncIterator[Client]:
    """An HTTP client whose `\\\\u` in arguments reach the server as JSON escapes."""
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30, transport=RawEscapes()) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http), mode=mode) as client,
    ):
        yield client


async def test_the_audit_keeps_redacted_truncated_arguments(app, server, stories):
    words = "The zipper broke on the first day and the lining is torn along the seam. " * 4
    async with connect(server) as client:
        await client.call_tool(
            "after_sales_create_ticket",
            create_arguments(
                stories["cheap_tshirts_in_window"]["order_id"],
                reason_code="damaged",
                description=words[:480],
                idempotency_key="audit-key-0001",
                refund_method="store_credit",
            ),
        )
    [row] = [r for r in recorded(app) if r.tool == "after_sales_create_ticket"]
    kept = json.loads(row.arguments)
    assert (row.caller, row.outcome, row.input_round, row.replayed) == ("support-bot", "ok", 1, False)
    assert len(kept["description"]) == 120 and kept["description"].endswith("…")
    assert kept["idempotency_key"] == "audit-key-0001"


async def test_the_audit_keeps_that_orders_were_looked_up_but_not_the_email_or_phone(app, server, mode, stories):
    story = stories["email_only_headphones"]
    lookups = [{"email": story["email"]}, {"phone": story["phone"], "limit": 1}, {"email": "nobody@example.com"}]
    async with connect(server, mode) as client:
        answers = [await client.call_tool(FIND, arguments) for arguments in lookups]
    rows = recorded(app)
    assert [a.is_error for a in answers] == [False, False, True]
    assert [(r.tool, r.outcome, json.loads(r.arguments)) for r in rows] == [
        (FIND, "ok", {"email": "[redacted]"}),
        (FIND, "ok", {"phone": "[redacted]", "limit": 1}),
        (FIND, "tool_error", {"email": "[redacted]"}),
    ]
    with app.uow() as uow:
        stored = " ".join(uow.session.scalars(select(ToolCall.arguments)))
    national = story["phone"].removeprefix("+86 ")
    assert [found for found in (story["email"], national, "nobody@example.com") if found in stored] == []


async def test_a_cursor_the_audit_keeps_does_not_confirm_a_guessed_email(app, server, mode, stories):
    email = stories["email_only_headphones"]["email"]
    async with connect(server, mode) as client:
        first = await client.call_tool(FIND, {"email": email, "limit": 1})
        cursor = first.structured_content["next_cursor"]
        second = await client.call_tool(FIND, {"email": email, "limit": 1, "cursor": cursor})
    assert not second.is_error and second.structured_content["orders"]
    [kept] = [json.loads(r.arguments)["cursor"] for r in recorded(app) if "cursor" in json.loads(r.arguments)]
    payload = kept.partition(".")[0]  # payload.signature
    fingerprint = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["l"]
    # What a reader of the audit who guesses the email would compute without the server's key.
    guessed = hashlib.sha256(f"{FIND}\nemail:{email}".encode()).hexdigest()[:16]
    assert kept == cursor and fingerprint != guessed


async def test_audit_writer_keeps_running_after_a_lone_surrogate(app, server, mode, stories):
    hostile = [
        {"ticket_id": SURROGATE},
        {"ticket_id": "T-2026-0357\x00"},
        {"ticket_id": "T-2026-0357", "\udfffnote": "a\ud83d lone half"},
    ]
    async with connect(server, mode) as client:
        for arguments in hostile:
            await client.call_tool(QUERY, arguments)
        later = await client.call_tool(QUERY, {"ticket_id": stories["ticket_awaiting_return"]["ticket_id"]})
    rows = recorded(app)
    assert not later.is_error
    assert [(r.tool, r.outcome, r.arguments_valid) for r in rows] == [(QUERY, "tool_error", False)] * 3 + [
        (QUERY, "ok", True)
    ]
    assert json.loads(rows[0].arguments) == {"ticket_id": SURROGATE}  # kept exactly, as its JSON escape
    assert json.loads(rows[1].arguments) == {"ticket_id": "T-2026-0357\x00"}
    assert app.audit.dropped == 0


async def test_over_http_a_lone_surrogate_escape_is_recorded_and_later_calls_are_too(app, http_url, token):
    # Only 2026-07-28 lets the escape through to a tools/call; 2025-11-25's JSON reader refuses the body (-32700).
    async with connect_raw(http_url, token, "auto") as client:
        refused = await client.call_tool(QUERY, {"ticket_id": "T-2026-0357\\ud800"})
        later = await client.call_tool(QUERY, {"ticket_id": "T-26-42"})
    rows = recorded(app)
    assert refused.is_error and "T-2026-0357" in refused.content[0].text and later.is_error
    assert [json.loads(r.arguments)["ticket_id"] for r in rows] == [SURROGATE, "T-26-42"]
    assert app.audit.dropped == 0


async def test_unknown_tool_names_are_recorded_and_counted_as_unknown(app, server, mode, monkeypatch):
    counted: list[str] = []
    observe = app.metrics.observe
    monkeypatch.setattr(app.metrics, "observe", lambda tool, *rest: (counted.append(tool), observe(tool, *rest)))
    names = ["x" * 300, 'after_sales_"quoted"\nname', "nul\x00name"]
    async with connect(server, mode) as client:
        for name in names:
            with pytest.raises(MCPError) as refused:
                await client.call_tool(name, {})
            assert refused.value.error.code == -32602
        await client.call_tool(QUERY, {"ticket_id": "T-26-42"})
    rows = recorded(app)
    assert [(r.tool, r.outcome, r.error_kind, r.arguments_valid) for r in rows] == [
        ("unknown", "protocol_error", "unknown_tool", False)
    ] * 3 + [(QUERY, "tool_error", "invalid_arguments", False)]
    assert counted == ["unknown"] * 3 + [QUERY]
    assert app.audit.dropped == 0

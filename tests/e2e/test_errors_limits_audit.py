"""Errors the model can act on, protocol errors by the spec, per-caller rate limits, and the audit."""

import json
import logging
from datetime import timedelta

import httpx
import pytest
from mcp.shared.exceptions import MCPError
from prometheus_client.parser import text_string_to_metric_families

from aftersales.app import App
from aftersales.cli.main import main
from aftersales.domain.callers import ALL_SCOPES, Caller
from aftersales.mcp.server import build_server
from aftersales.services import tickets
from tests.conftest import settings_for
from tests.e2e.elicitation import Person, second_round
from tests.e2e.helpers import connect, connect_http

pytestmark = pytest.mark.anyio
LEAKS = ("pydantic", "validation error", "traceback", "http://", "https://")
FIVE_BAD = {
    "order_id": "O-26-1",  # pattern
    "line_no": 0,  # range
    "kind": "refund",  # enum
    "reason_code": "defective",
    "description": "bad",  # length
    "idempotency_key": "snapshot-key-01",
    "quantity": "two",  # type
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def assert_names_all_five(text: str) -> None:
    assert "5 invalid arguments" in text
    assert 'order_id: received "O-26-1", which does not match the pattern' in text
    assert "line_no: received 0; it must be at least 1" in text
    assert 'kind: received "refund"; the allowed values are refund_only, return_and_refund, exchange, repair' in text
    assert "description: received a text of 3 characters; it must be between 5 and 500 characters long" in text
    assert 'quantity: received "two" (a string); it must be an integer' in text
    assert not any(leak in text.lower() for leak in LEAKS)


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

    monkeypatch.setattr(tickets, "query_ticket", broken)
    caplog.set_level(logging.ERROR, logger="aftersales.tools")
    async with connect(server, mode) as client:
        with pytest.raises(MCPError) as fault:
            await client.call_tool("after_sales_query_ticket", {"ticket_id": "T-2026-0001"})
    message = fault.value.error.message
    assert fault.value.error.code == -32603 and "reference" in message
    assert "disk on fire" not in message and "/srv" not in message
    reference = message.split("reference ")[1].split(")")[0]
    assert any(reference in r.getMessage() and r.exc_info for r in caplog.records)


async def test_a_burst_over_the_read_limit_gets_retryable_errors_while_another_caller_is_served(app, tmp_path):
    settings = settings_for(app.settings.resolved_database_url, tmp_path).model_copy(
        update={"rate_read_per_minute": 6, "rate_read_burst": 3}
    )
    limited = App(settings)
    server, other = build_server(limited), Caller("other-bot", frozenset(ALL_SCOPES))
    call = {"ticket_id": "T-2026-0001"}
    async with connect(server) as client:
        results = [await client.call_tool("after_sales_query_ticket", call) for _ in range(5)]
    async with connect(server, caller=other) as client:
        theirs = await client.call_tool("after_sales_query_ticket", call)
    limited.close()
    refused = [r for r in results if r.is_error]
    assert [r.is_error for r in results] == [False, False, False, True, True]
    assert all("retryable: wait" in r.content[0].text and "seconds" in r.content[0].text for r in refused)
    assert all(0 < r.meta["aftersales/retryAfterSeconds"] <= 10 for r in refused)
    assert not theirs.is_error


async def test_stats_report_the_exact_counts_of_a_scripted_session(app, server, stories, capsys, monkeypatch):
    create = {
        "order_id": stories["vip_laptop_recent"]["order_id"],
        "line_no": 1,
        "kind": "return_and_refund",
        "reason_code": "defective",
        "description": "Screen flickers.",
        "idempotency_key": "stats-key-0001",
    }
    async with connect(server, elicitation_callback=Person()) as client:
        for ticket_id in ("T-2026-0357", "T-26-42", "T-2026-9999999", "T-2026-9999999", "T-2026-0357"):
            await client.call_tool("after_sales_query_ticket", {"ticket_id": ticket_id})
        await client.call_tool(
            "after_sales_estimate_refund", {"order_id": create["order_id"], "line_no": 1, "reason_code": "defective"}
        )
        first = await client.session.call_tool("after_sales_create_ticket", create, allow_input_required=True)
        await second_round(client.session, "after_sales_create_ticket", create, first)
        await client.call_tool("after_sales_create_ticket", create)
        with pytest.raises(MCPError):
            await client.call_tool("after_sales_nope", {})
    app.audit.flush()
    monkeypatch.setenv("AFTERSALES_DATABASE_URL", app.settings.resolved_database_url)
    assert main(["stats", "--json", "--since", "1h"]) == 0
    figures = {row["tool"]: row for row in json.loads(capsys.readouterr().out)["tools"]}
    query, create_stats = figures["after_sales_query_ticket"], figures["after_sales_create_ticket"]
    assert (query["calls"], query["parameter_hit_rate"], query["failure_rate"]) == (5, 0.8, 0.6)
    assert (query["repeats_after_failure"], query["retry_rate"]) == (3, 0.6)
    assert (create_stats["calls"], create_stats["input_required_retries"], create_stats["replays"]) == (3, 1, 1)
    assert (create_stats["failure_rate"], create_stats["retry_rate"]) == (0.0, 0.6667)
    assert figures["after_sales_estimate_refund"]["calls"] == 1
    assert (figures["unknown"]["calls"], figures["unknown"]["parameter_hit_rate"]) == (1, 0.0)  # after_sales_nope
    assert all(row["p95_ms"] >= row["p50_ms"] > 0 for row in figures.values())


async def test_metrics_count_calls_by_outcome_in_prometheus_text(app, http_url, token):
    async with connect_http(http_url, token) as client:
        await client.call_tool("after_sales_query_ticket", {"ticket_id": "T-2026-0357"})
        await client.call_tool("after_sales_query_ticket", {"ticket_id": "T-26-42"})
    async with httpx.AsyncClient() as http:
        text = (await http.get(f"{http_url}/metrics")).text
    found = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
    query = ("tool", "after_sales_query_ticket")
    assert found[("aftersales_tool_calls_total", (("outcome", "ok"), query))] == 1
    assert found[("aftersales_tool_calls_total", (("outcome", "tool_error"), query))] == 1
    assert found[("aftersales_tool_argument_failures_total", (query,))] == 1
    assert found[("aftersales_tool_call_duration_seconds_count", (query,))] == 2
    assert "# TYPE aftersales_tool_call_duration_seconds histogram" in text


async def test_the_audit_keeps_redacted_truncated_arguments(app, server, stories):
    from sqlalchemy import select

    from aftersales.storage.models import ToolCall

    words = "The zipper broke on the first day and the lining is torn along the seam. " * 4
    async with connect(server) as client:
        await client.call_tool(
            "after_sales_create_ticket",
            {
                "order_id": stories["cheap_tshirts_in_window"]["order_id"],
                "line_no": 1,
                "kind": "return_and_refund",
                "reason_code": "damaged",
                "description": words[:480],
                "idempotency_key": "audit-key-0001",
                "refund_method": "store_credit",
            },
        )
    app.audit.flush()
    with app.uow() as uow:
        row = uow.session.scalars(select(ToolCall).where(ToolCall.tool == "after_sales_create_ticket")).one()
        kept = json.loads(row.arguments)
        assert (row.caller, row.outcome, row.input_round, row.replayed) == ("support-bot", "ok", 1, False)
    assert len(kept["description"]) == 120 and kept["description"].endswith("…")
    assert kept["idempotency_key"] == "audit-key-0001"


def test_audit_records_are_purged_after_their_retention(app):
    from datetime import UTC, datetime

    from freezegun import freeze_time
    from sqlalchemy import func, select

    from aftersales.storage.audit import AuditLog, CallRecord
    from aftersales.storage.models import ToolCall

    def record(at):
        return CallRecord(
            called_at=at,
            caller="c",
            tool="t",
            arguments={},
            arguments_valid=True,
            outcome="ok",
            error_kind=None,
            input_round=1,
            replayed=False,
            latency_ms=1.0,
        )

    old = datetime(2026, 10, 1, tzinfo=UTC)
    with freeze_time(old):
        log = AuditLog(app.session_factory, timedelta(days=30))
        log.record(record(old))
        log.close()
    with freeze_time(old + timedelta(days=31)):
        log = AuditLog(app.session_factory, timedelta(days=30))
        log.record(record(old + timedelta(days=31)))
        log.close()
    with app.uow() as uow:
        assert uow.session.scalar(select(func.count()).select_from(ToolCall)) == 1

"""`aftersales stats` after a scripted session through the real MCP client: the exact figures of what was sent."""

import json

import pytest
from mcp.shared.exceptions import MCPError

from aftersales.cli.main import main
from tests.support.clients import connect
from tests.support.creation import create_arguments
from tests.support.elicitation import Person, second_round

pytestmark = pytest.mark.anyio


async def test_stats_report_the_exact_counts_of_a_scripted_session(app, server, stories, capsys, monkeypatch):
    create = create_arguments(stories["vip_laptop_recent"]["order_id"])
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

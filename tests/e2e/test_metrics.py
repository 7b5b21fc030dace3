"""GET /metrics over real HTTP: what any caller sends leaves the exposition parseable and its series fixed."""

import httpx
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics_families
from prometheus_client.parser import text_string_to_metric_families

from aftersales.mcp.tools import NAMES
from tests.support.clients import connect_http

pytestmark = [pytest.mark.anyio, pytest.mark.http]
HOSTILE = 'after_sales_query_ticket",outcome="ok"} 99\nforged_total 1\n#'


async def scrape(url: str, accept: str | None = None) -> httpx.Response:
    async with httpx.AsyncClient() as http:
        return await http.get(f"{url}/metrics", headers={"Accept": accept} if accept else {})


async def test_metrics_count_calls_by_outcome_in_prometheus_text(app, http_url, token):
    async with connect_http(http_url, token) as client:
        await client.call_tool("after_sales_query_ticket", {"ticket_id": "T-2026-0357"})
        await client.call_tool("after_sales_query_ticket", {"ticket_id": "T-26-42"})
    text = (await scrape(http_url)).text
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


async def test_a_tool_name_with_a_quote_and_a_newline_leaves_metrics_parseable_and_counts_as_unknown(
    app, http_url, token, mode
):
    async with connect_http(http_url, token, mode) as client:
        for _ in range(2):
            with pytest.raises(MCPError) as refused:
                await client.call_tool(HOSTILE, {})
            assert refused.value.error.code == INVALID_PARAMS
        await client.call_tool(NAMES[0], {"ticket_id": "T-2026-0357"})
    response = await scrape(http_url)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain; version=0.0.4")
    families = {family.name: family for family in text_string_to_metric_families(response.text)}
    assert "forged" not in families
    calls = {
        (sample.labels["tool"], sample.labels["outcome"]): sample.value
        for sample in families["aftersales_tool_calls"].samples
        if sample.name == "aftersales_tool_calls_total"
    }
    assert {tool for tool, _ in calls} == {*NAMES, "unknown"}
    assert calls[("unknown", "protocol_error")] == 2 and calls[(NAMES[0], "ok")] == 1


async def test_metrics_answer_in_openmetrics_when_the_scraper_asks_for_it(http_url):
    response = await scrape(http_url, "application/openmetrics-text; version=1.0.0; charset=utf-8")
    assert response.headers["content-type"].startswith("application/openmetrics-text; version=1.0.0")
    names = {family.name for family in openmetrics_families(response.text)}
    assert {"aftersales_tool_calls", "aftersales_audit_records_dropped", "process_cpu_seconds", "python_info"} <= names

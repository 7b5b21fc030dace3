"""The metrics registry: label values from fixed sets, exposition a Prometheus parser reads, a registry per App."""

from types import SimpleNamespace

import anyio
from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics_families
from prometheus_client.parser import text_string_to_metric_families

from aftersales.mcp.server import build_server
from aftersales.mcp.tools import NAMES
from aftersales.metrics import OUTCOMES, RETRY_KINDS, UNKNOWN, Metrics
from tests.support.metrics import samples

EVIL = 'after_sales_query_ticket"} 1\nfake_metric{x="'


def bound(dropped=lambda: 0) -> Metrics:
    metrics = Metrics()
    metrics.bind(NAMES, audit_dropped=dropped)
    return metrics


def test_a_tool_name_with_a_quote_and_a_newline_counts_as_unknown_and_the_exposition_still_parses():
    metrics = bound()
    metrics.observe(EVIL, "protocol_error", False, [], 0.002)
    calls = samples(metrics, "aftersales_tool_calls_total")
    assert calls[(("outcome", "protocol_error"), ("tool", UNKNOWN))] == 1
    assert samples(metrics, "aftersales_tool_argument_failures_total")[(("tool", UNKNOWN),)] == 1
    assert "fake_metric" not in metrics.render()[0].decode()


def test_no_caller_can_create_a_series_with_its_own_tool_name_outcome_or_retry_kind():
    metrics = bound()
    before = {
        name: len(samples(metrics, name)) for name in ("aftersales_tool_calls_total", "aftersales_tool_retries_total")
    }
    for number in range(50):
        metrics.observe(f"tool-{number}", "ok", True, ["replay"], 0.01)
    assert len(samples(metrics, "aftersales_tool_calls_total")) == before["aftersales_tool_calls_total"]
    assert len(samples(metrics, "aftersales_tool_retries_total")) == before["aftersales_tool_retries_total"]
    for number in range(50):
        metrics.observe(NAMES[0], f"outcome-{number}", True, [f"kind-{number}"], 0.01)
    labels = samples(metrics, "aftersales_tool_calls_total") | samples(metrics, "aftersales_tool_retries_total")
    values = {value for key in labels for _, value in key}
    assert values <= {*NAMES, UNKNOWN, *OUTCOMES, *RETRY_KINDS}


def test_every_tool_outcome_and_retry_series_is_exported_at_zero_before_the_first_call():
    metrics = bound()
    calls = samples(metrics, "aftersales_tool_calls_total")
    assert len(calls) == (len(NAMES) + 1) * len(OUTCOMES) and set(calls.values()) == {0.0}
    assert len(samples(metrics, "aftersales_tool_retries_total")) == (len(NAMES) + 1) * len(RETRY_KINDS)
    assert set(samples(metrics, "aftersales_tool_call_duration_seconds_count")) == {
        (("tool", tool),) for tool in (*NAMES, UNKNOWN)
    }


def test_a_call_lands_in_its_tool_outcome_retry_and_latency_series():
    metrics = bound()
    metrics.observe(NAMES[2], "ok", True, ["input_required", "replay"], 0.03)
    assert samples(metrics, "aftersales_tool_calls_total")[(("outcome", "ok"), ("tool", NAMES[2]))] == 1
    retries = samples(metrics, "aftersales_tool_retries_total")
    assert retries[(("kind", "replay"), ("tool", NAMES[2]))] == 1
    assert retries[(("kind", "repeat_after_failure"), ("tool", NAMES[2]))] == 0
    buckets = samples(metrics, "aftersales_tool_call_duration_seconds_bucket")
    assert buckets[(("le", "0.025"), ("tool", NAMES[2]))] == 0
    assert buckets[(("le", "0.05"), ("tool", NAMES[2]))] == 1


def test_openmetrics_is_served_when_the_scraper_asks_for_it_and_prometheus_text_otherwise():
    metrics = bound()
    metrics.observe(NAMES[0], "ok", True, [], 0.01)
    body, content_type = metrics.render("application/openmetrics-text; version=1.0.0,text/plain;q=0.5")
    assert content_type.startswith("application/openmetrics-text; version=1.0.0")
    assert body.decode().endswith("# EOF\n")
    families = {family.name: family for family in openmetrics_families(body.decode())}
    assert families["aftersales_tool_calls"].type == "counter"
    assert metrics.render("text/plain")[1].startswith("text/plain; version=0.0.4")


def test_process_and_python_metrics_are_exported():
    names = {family.name for family in text_string_to_metric_families(bound().render()[0].decode())}
    assert {"process_cpu_seconds", "process_resident_memory_bytes", "python_info", "python_gc_objects_collected"} <= (
        names
    )


def test_two_apps_in_one_process_count_into_registries_of_their_own():
    first, second = bound(), bound()
    first.observe(NAMES[0], "ok", True, [], 0.01)
    assert samples(first, "aftersales_tool_calls_total")[(("outcome", "ok"), ("tool", NAMES[0]))] == 1
    assert samples(second, "aftersales_tool_calls_total")[(("outcome", "ok"), ("tool", NAMES[0]))] == 0


def test_dropped_audit_records_are_read_from_the_audit_log_at_every_scrape(bare_app):
    app = bare_app
    build_server(app)
    assert samples(app.metrics, "aftersales_audit_records_dropped_total") == {(): 0}
    app.audit = SimpleNamespace(close=lambda: None, dropped=7)
    assert samples(app.metrics, "aftersales_audit_records_dropped_total") == {(): 7}
    app.audit.dropped = 9
    assert samples(app.metrics, "aftersales_audit_records_dropped_total") == {(): 9}


def test_the_server_binds_exactly_the_tools_it_registers(bare_app):
    server = build_server(bare_app)
    registered = {tool.name for tool in anyio.run(server.list_tools)}
    assert registered == set(NAMES)
    counted = {dict(key)["tool"] for key in samples(bare_app.metrics, "aftersales_tool_argument_failures_total")}
    assert counted == {*NAMES, UNKNOWN}


def test_tickets_are_counted_by_channel_from_a_bounded_set_whatever_the_caller_sent():
    metrics = bound()
    assert set(samples(metrics, "aftersales_tickets_total").values()) == {0.0}
    metrics.ticket("opened", "web")
    metrics.ticket("opened", 'web"} 1\nforged_total 1\n#')
    tickets = samples(metrics, "aftersales_tickets_total")
    assert tickets[(("change", "opened"), ("channel", "web"))] == 1
    assert tickets[(("change", "opened"), ("channel", UNKNOWN))] == 1
    assert len(tickets) == 2 * 4 and "forged" not in metrics.render()[0].decode()

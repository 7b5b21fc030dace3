"""OpenTelemetry traces through the real MCP client on both revisions, kept by the SDK's in-memory exporter: one
trace per call with its units of work inside, the client's parent honoured, the rounds of a question tied."""

import pytest
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, TraceFlags

from aftersales.mcp.server import build_server
from aftersales.otel import switch
from tests.support.cancellation import WORDS, cancel_arguments
from tests.support.clients import connect
from tests.support.elicitation import Person
from tests.support.spans import inside, kept_spans, named

pytestmark = pytest.mark.anyio
SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # the MCP layer's spans, not storage's
QUERY, CANCEL = "after_sales_query_ticket", "after_sales_cancel_ticket"
# The span of an instrumented agent around its tool call, as SEP-414 carries it in the request's _meta.
AGENT_TRACE, AGENT_SPAN = 0x4BF92F3577B34DA6A3CE929D0E0E4736, 0x00F067AA0BA902B7
TRACEPARENT = f"00-{AGENT_TRACE:032x}-{AGENT_SPAN:016x}-01"


@pytest.fixture
def spans():
    """Traces on for this test, every span kept in memory."""
    with kept_spans() as exporter:
        yield exporter


@pytest.fixture
def server(spans, app):
    """The MCPServer built with traces on, as `aftersales serve` builds it under OTEL_* settings."""
    return build_server(app)


async def test_each_tool_call_is_one_trace_with_its_unit_of_work_inside_the_sdks_request_span(
    server,
    spans,
    app,
    mode,
    stories,
    backend,
):
    ticket_id = stories["ticket_under_review"]["ticket_id"]
    async with connect(server, mode) as client:
        for _ in range(2):
            assert not (await client.call_tool(QUERY, {"ticket_id": ticket_id})).is_error
    found = spans.get_finished_spans()
    calls = named(found, f"tools/call {QUERY}")
    assert len(calls) == 2 and calls[0].context.trace_id != calls[1].context.trace_id
    for call in calls:
        assert call.kind == SpanKind.SERVER and call.attributes["gen_ai.tool.name"] == QUERY
        assert call.attributes["mcp.protocol.version"] == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        assert {key: value for key, value in call.attributes.items() if key.startswith("aftersales.")} == {
            "aftersales.caller": "support-bot",
            "aftersales.tool": QUERY,
            "aftersales.input_round": 1,
            "aftersales.outcome": "ok",
            "aftersales.replayed": False,
        }
        [unit] = inside(found, call)
        assert unit.name == "unit_of_work read" and unit.kind == SpanKind.CLIENT
        assert unit.context.trace_id == call.context.trace_id
        assert unit.attributes["db.system.name"] == backend and unit.attributes["aftersales.db.write"] is False
    # Units of work outside a request (the audit writer's) start no trace of their own.
    assert all(span.parent is not None for span in found if span.name.startswith("unit_of_work"))


@SQLITE_ONLY
async def test_the_clients_traceparent_in_meta_is_continued_as_the_parent_of_the_call(
    server,
    spans,
    mode,
    stories,
):
    ticket_id = stories["ticket_under_review"]["ticket_id"]
    async with connect(server, mode) as client:
        # As an instrumented agent calls: inside its span, which the SDK's client on 2025-11-25 replaces in _meta
        # with its own "MCP send" span under it; the in-memory client of 2026-07-28 sends the _meta given.
        with trace.use_span(NonRecordingSpan(SpanContext(AGENT_TRACE, AGENT_SPAN, False, TraceFlags(1)))):
            await client.call_tool(QUERY, {"ticket_id": ticket_id}, meta={"traceparent": TRACEPARENT})
        await client.call_tool(QUERY, {"ticket_id": ticket_id})  # no parent: a trace of its own
    found = spans.get_finished_spans()
    parented, alone = named(found, f"tools/call {QUERY}")
    sent = [span.context.span_id for span in named(found, f"MCP send tools/call {QUERY}")]
    # A remote parent is one read from _meta: the in-memory server's tasks were started before the agent's span.
    assert parented.context.trace_id == AGENT_TRACE and parented.parent is not None and parented.parent.is_remote
    assert parented.parent.span_id == (sent[0] if mode == "legacy" else AGENT_SPAN)
    assert alone.context.trace_id != AGENT_TRACE
    assert [unit.context.trace_id for unit in inside(found, parented)] == [AGENT_TRACE]


@SQLITE_ONLY
async def test_a_call_that_asks_is_one_trace_on_2025_11_25_and_two_linked_rounds_on_2026_07_28(
    server,
    spans,
    mode,
    stories,
):
    ticket_id = stories["ticket_awaiting_return"]["ticket_id"]
    async with connect(server, mode, elicitation_callback=Person()) as client:
        result = await client.call_tool(CANCEL, cancel_arguments(ticket_id))
    assert result.structured_content["outcome"] == "cancelled"
    found = spans.get_finished_spans()
    calls = named(found, f"tools/call {CANCEL}")
    if mode == "legacy":  # the question is asked inside the call
        [call] = calls
        [asked] = named(found, "MCP send elicitation/create")
        assert asked.parent is not None and asked.parent.span_id == call.context.span_id
        assert asked.context.trace_id == call.context.trace_id and call.attributes["aftersales.outcome"] == "ok"
        answering = call
    else:  # each round is a request: the answering round links to the asking one, sealed in the requestState
        asking, answering = calls
        assert asking.attributes["aftersales.outcome"] == "input_required"
        assert asking.attributes["aftersales.input_round"] == 1 and answering.attributes["aftersales.input_round"] == 2
        assert answering.attributes["aftersales.outcome"] == "ok" and asking.links == ()
        [link] = answering.links
        assert (link.context.trace_id, link.context.span_id) == (asking.context.trace_id, asking.context.span_id)
        assert dict(link.attributes or {}) == {"aftersales.link": "asked_by"}
    units = inside(found, answering)
    assert "unit_of_work write" in [unit.name for unit in units]
    assert any(unit.attributes.get("aftersales.db.committed") for unit in units)
    # The customer's words (an argument) are in no span of the call: not an attribute, not an event, not a link.
    told = [span.to_json() for span in found]
    assert not any(WORDS in text or WORDS.replace('"', '\\"') in text for text in told)


@SQLITE_ONLY
async def test_with_traces_off_the_call_is_not_described_and_no_unit_of_work_is_spanned(
    spans,
    app,
    mode,
    stories,
):
    switch.disable()  # what `aftersales serve` is without OTEL_* settings; the SDK's own span stays (a no-op there)
    ticket_id = stories["ticket_under_review"]["ticket_id"]
    async with connect(build_server(app), mode) as client:
        await client.call_tool(QUERY, {"ticket_id": ticket_id})
    found = spans.get_finished_spans()
    [call] = named(found, f"tools/call {QUERY}")
    assert not any(key.startswith("aftersales.") for key in call.attributes)
    assert [span.name for span in found if span.name.startswith("unit_of_work")] == []

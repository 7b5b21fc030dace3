"""CallSpans on its own: the world a call ran in, and the asking round named in the requestState it returns."""

import json
from types import SimpleNamespace
from typing import Any

import pytest
from mcp_types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from aftersales.mcp.spans import STATE_FIELD, CallSpans, asking_round
from aftersales.worlds.context import entered
from tests.support.worlds import a_world

pytestmark = pytest.mark.anyio
QUESTION = ElicitRequest(params=ElicitRequestFormParams(message="Confirm?", requested_schema={"type": "object"}))


async def call(params: dict[str, Any], result: Any) -> tuple[Any, Any]:
    """Run one tools/call through CallSpans inside a recording request span: (its result, the span as ended)."""
    kept, provider = InMemorySpanExporter(), TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(kept))

    async def inner(_ctx: Any) -> Any:
        return result

    with provider.get_tracer("test").start_as_current_span("tools/call"):
        returned = await CallSpans()(SimpleNamespace(method="tools/call", params=params), inner)
    [span] = kept.get_finished_spans()
    return returned, span


async def test_a_call_in_a_world_names_the_world_and_its_asking_state_names_the_round_for_the_answer_to_link():
    state = json.dumps({"v": 1, "outcomes": {}})  # what the SDK's resolvers keep, left as it was beside the mark
    asked = InputRequiredResult(input_requests={"confirm": QUESTION}, request_state=state)
    with entered(a_world("w-traced"), lambda _: 0):
        returned, span = await call({"name": "after_sales_cancel_ticket", "arguments": {}}, asked)
    assert span.attributes["aftersales.world"] == "w-traced"
    assert span.attributes["aftersales.outcome"] == "input_required"
    fields = json.loads(returned.request_state)
    assert {key: value for key, value in fields.items() if key != STATE_FIELD} == {"v": 1, "outcomes": {}}
    named = asking_round(returned.request_state)
    assert named is not None and (named.trace_id, named.span_id) == (span.context.trace_id, span.context.span_id)


@pytest.mark.parametrize("state", ["not json", '["a", "list"]', json.dumps({STATE_FIELD: "00-garbage"}), None])
async def test_a_state_that_names_no_valid_round_links_nothing_and_one_not_an_object_is_returned_as_it_was(state):
    asked = {"resultType": "input_required", "inputRequests": {}, "requestState": state}
    params = {"name": "after_sales_cancel_ticket", "inputResponses": {}, "requestState": state}
    returned, span = await call(params, asked)
    assert span.links == () and asking_round(state) is None
    if state is None or not state.startswith("{"):
        assert returned["requestState"] == state
    else:  # an object is marked with this round, the bad mark replaced
        assert asking_round(returned["requestState"]).span_id == span.context.span_id

"""A tools/call told on the request span the mcp SDK opens: the caller, the tool, the outcome and the world.

Installed only when traces are on (aftersales.otel). The arguments never become attributes, nor does anything of
the result: they may hold a customer's words, email, phone or bank account.

On 2025-11-25 a question is asked inside the call, so the call and its `elicitation/create` are one trace. On
2026-07-28 each round is a request of its own, with the client's parent when it sends one, and may land on another
replica: the round that answers carries a span link to the round that asked (its span context rides, sealed like
the rest, in the requestState), so the rounds of one call are found from either end.
"""

import json
from collections.abc import Mapping
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from opentelemetry import trace
from opentelemetry.trace import Span, SpanContext
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from aftersales.domain.calls import tool_label
from aftersales.mcp.caller import current_caller_id
from aftersales.mcp.recorder import classify
from aftersales.mcp.requests import tool_call
from aftersales.worlds.context import current_id

# The requestState field holding the asking round's traceparent. The state's other readers (the SDK's resolvers,
# url_questions) read their own fields and pass over this one.
STATE_FIELD = "aftersales_traceparent"
ASKED_BY = {"aftersales.link": "asked_by"}  # the link's attribute: the linked span asked what this round answers
_format = TraceContextTextMapPropagator()


class CallSpans:
    """Server middleware, just inside the SDK's requestState boundary: describe each tools/call on its span."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Set the call's attributes; link an answering round to its asking one; mark an asking round's state."""
        params = tool_call(ctx)
        span = trace.get_current_span()
        if params is None or not span.is_recording():
            return await call_next(ctx)
        answering = params.get("inputResponses") is not None
        span.set_attributes(
            {
                "aftersales.caller": current_caller_id(),
                "aftersales.tool": tool_label(params.get("name")),
                "aftersales.input_round": 2 if answering else 1,
            }
        )
        if (world := current_id()) is not None:
            span.set_attribute("aftersales.world", world)
        if (asked := asking_round(params.get("requestState"))) is not None:
            span.add_link(asked, ASKED_BY)
        try:
            result = await call_next(ctx)
        except BaseException:
            span.set_attribute("aftersales.outcome", "protocol_error")  # the SDK's span says which error
            raise
        outcome, kind, replayed = classify(result)
        span.set_attributes({"aftersales.outcome": outcome, "aftersales.replayed": replayed})
        if kind is not None:
            span.set_attribute("aftersales.error_kind", kind)
        return marked(result, span) if outcome == "input_required" else result


def marked(result: HandlerResult, span: Span) -> HandlerResult:
    """An input_required result whose (still unsealed) requestState names `span`, the round asking."""
    state = result.get("requestState") if isinstance(result, Mapping) else getattr(result, "request_state", None)
    fields = _object(state)
    if fields is None:
        return result
    carrier: dict[str, str] = {}
    _format.inject(carrier, trace.set_span_in_context(span))
    marked_state = json.dumps(fields | {STATE_FIELD: carrier["traceparent"]}, separators=(",", ":"))
    if isinstance(result, Mapping):
        return {**result, "requestState": marked_state}
    assert result is not None  # a None result has no requestState
    return result.model_copy(update={"request_state": marked_state})


def asking_round(state: object) -> SpanContext | None:
    """The span context of the round that asked what this requestState answers; None when it names none."""
    fields = _object(state)
    traceparent = None if fields is None else fields.get(STATE_FIELD)
    if not isinstance(traceparent, str):
        return None
    found = trace.get_current_span(_format.extract({"traceparent": traceparent})).get_span_context()
    return found if found.is_valid else None


def _object(state: object) -> dict[str, Any] | None:
    """A requestState's fields, when it is a JSON object (the SDK's and this server's always are)."""
    if not isinstance(state, str):
        return None
    try:
        fields = json.loads(state)
    except ValueError:
        return None
    return fields if isinstance(fields, dict) else None

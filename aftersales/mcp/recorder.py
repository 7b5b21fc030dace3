"""Observe every tools/call: the audit record and the metrics, taken from what actually went back to the client."""

import functools
import logging
import threading
import time
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

from aftersales.clock import now
from aftersales.domain.calls import (
    ARGUMENT_ERRORS,
    FAILED,
    TICKET_CHANGES,
    UNKNOWN,
    WRITES,
    channel_label,
    repeats_failure,
    tool_label,
)
from aftersales.mcp.caller import current_caller_id
from aftersales.mcp.requests import tool_call
from aftersales.metrics import Metrics
from aftersales.storage.audit import AuditLog, CallRecord
from aftersales.worlds.context import current_id

log = logging.getLogger(__name__)
# The top-level fields of a result that say how a call ended, by their names on the wire.
OUTCOME_FIELDS = frozenset({"resultType", "inputRequests", "isError", "_meta", "structuredContent"})


class CallRecorder:
    """Outermost tool middleware: time the call, classify its outcome, record it, count it."""

    def __init__(self, audit: AuditLog, metrics: Metrics) -> None:
        self._audit, self._metrics = audit, metrics
        # The last failure per (world, caller, tool), for repeat counts.
        self._failures: dict[tuple[str | None, str, str], datetime] = {}
        self._lock = threading.Lock()

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Record tools/call requests; pass everything else through."""
        params = tool_call(ctx)
        if params is None:
            return await call_next(ctx)
        tool = tool_label(params.get("name"))
        started_at, started = now(), time.perf_counter()
        try:
            result = await call_next(ctx)
        except MCPError as error:
            code = "unknown_tool" if tool == UNKNOWN else f"jsonrpc_{error.error.code}"
            self._observe(params, tool, started_at, started, "protocol_error", code, replayed=False)
            raise
        except Exception:
            self._observe(params, tool, started_at, started, "protocol_error", "internal", replayed=False)
            raise
        outcome, kind, replayed = classify(result)
        self._observe(params, tool, started_at, started, outcome, kind, replayed, ticket_change(tool, result))
        return result

    def _observe(
        self,
        params: Mapping[str, Any],
        tool: str,
        at: datetime,
        started: float,
        outcome: str,
        kind: str | None,
        replayed: bool,
        change: str | None = None,
    ) -> None:
        seconds = time.perf_counter() - started
        try:
            self._record(params, tool, at, seconds, outcome, kind, replayed)
            if change is not None:
                self._metrics.ticket(change, channel_label((params.get("arguments") or {}).get("channel")))
        except Exception:
            # Observing a call must never change what the client gets back.
            log.exception("could not record a call of %s", tool)

    def _record(
        self,
        params: Mapping[str, Any],
        tool: str,
        at: datetime,
        seconds: float,
        outcome: str,
        kind: str | None,
        replayed: bool,
    ) -> None:
        caller = current_caller_id()
        resumed = bool(params.get("inputResponses"))
        retries = [k for k, happened in (("input_required", resumed), ("replay", replayed)) if happened]
        if self._repeats_failure(caller, tool, at, outcome in FAILED):
            retries.append("repeat_after_failure")
        valid = kind not in ARGUMENT_ERRORS
        self._metrics.observe(tool, outcome, valid, retries, seconds)
        self._audit.record(
            CallRecord(
                called_at=at,
                caller=caller,
                tool=tool,
                arguments=params.get("arguments") or {},  # the writer redacts them, off the request path
                arguments_valid=valid,
                outcome=outcome,
                error_kind=kind,
                input_round=2 if resumed else 1,
                replayed=replayed,
                latency_ms=round(seconds * 1000, 3),
                world=current_id(),
            )
        )

    def _repeats_failure(self, caller: str, tool: str, at: datetime, failed: bool) -> bool:
        """Whether this call repeats a failure (domain.calls.repeats_failure); remember it if it failed itself."""
        key = (current_id(), caller, tool)
        with self._lock:
            previous = self._failures.pop(key, None)
            if failed:
                self._failures[key] = at
        return repeats_failure(previous, at)


def classify(result: HandlerResult) -> tuple[str, str | None, bool]:
    """(outcome, error kind, replayed) of a tools/call result as the client receives it."""
    data = _fields(result)
    if data.get("resultType") == "input_required" or "inputRequests" in data:
        return "input_required", None, False
    if data.get("isError"):
        meta = data.get("_meta") or {}
        return "tool_error", str(meta.get("aftersales/error", "tool")), False
    structured = data.get("structuredContent")
    # Structured content may be any JSON value on 2026-07-28; only an object can say it was replayed.
    return "ok", None, isinstance(structured, Mapping) and structured.get("outcome") == "replayed"


def ticket_change(tool: str, result: HandlerResult) -> str | None:
    """What a successful write did to a ticket (domain.calls.TICKET_CHANGES: opened, cancelled), else None."""
    if tool not in WRITES:
        return None
    data = _fields(result)
    structured = data.get("structuredContent")
    if data.get("isError") or not isinstance(structured, Mapping):
        return None
    return TICKET_CHANGES.get((tool, str(structured.get("outcome"))))


def _fields(result: HandlerResult) -> Mapping[str, Any]:
    """The OUTCOME_FIELDS of a result, from a dict or a result model."""
    return result if isinstance(result, dict) else (_wire_fields(result) if result is not None else {})


def _wire_fields(result: BaseModel) -> dict[str, Any]:
    """The result's OUTCOME_FIELDS by wire name, as model_dump(by_alias=True) names them, its content not dumped."""
    # Every call is classified, and a ticket's content is most of its result.
    found = {wire: getattr(result, name) for name, wire in _outcome_fields(type(result))}
    found.update((key, value) for key, value in (result.model_extra or {}).items() if key in OUTCOME_FIELDS)
    return found


@functools.cache
def _outcome_fields(kind: type[BaseModel]) -> tuple[tuple[str, str], ...]:
    """(attribute, wire name) of each of a result type's fields that classify reads."""
    wire = ((name, field.serialization_alias or field.alias or name) for name, field in kind.model_fields.items())
    return tuple((name, alias) for name, alias in wire if alias in OUTCOME_FIELDS)

"""The trial's server middleware: trace every tools/call of a trial world, and play the task's events.

Outermost tool middleware on the harness's server, so the trace holds what the agent's client finally got. Calls
outside a trial (no trial in the context) pass straight through.
"""

import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import anyio
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR

from aftersales import clock
from aftersales.durations import parse_duration
from aftersales.mcp.caller import current_caller_id
from aftersales.mcp.forms import FormAnswerer
from aftersales.mcp.recorder import classify
from aftersales.mcp.requests import tool_call
from aftersales.testing.customer import current_rounds
from aftersales.testing.tasks import Event, WorldStart
from aftersales.testing.trace import FORMAT
from aftersales.worlds.model import World, iso_exact


@dataclass
class Trial:
    """One trial world as the server sees it: how it started, the world (its clock), who answers forms, the trace."""

    start: WorldStart
    world: World
    advance: Callable[[str, timedelta], World]  # moves a world's clock in the registry, returns the world
    answerer: FormAnswerer | None = None  # None: the agent's client answers the forms
    label: str = "a test"  # what the world is for (a task id), in diffs
    trace: list[dict[str, Any]] = field(default_factory=list)
    done: Counter[str] = field(default_factory=Counter)  # finished calls per tool, for the events
    lock: threading.Lock = field(default_factory=threading.Lock)


current_trial: ContextVar[Trial | None] = ContextVar("aftersales_trial", default=None)


class TrialRecorder:
    """Server middleware: append a trace entry per tools/call; after a call, play the events it triggers."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Trace tools/call requests in a trial world; pass everything else through."""
        trial, params = current_trial.get(), tool_call(ctx)
        if trial is None or params is None:
            return await call_next(ctx)
        rounds: list[dict[str, Any]] = []
        token = current_rounds.set(rounds)
        entry = _entry(trial, ctx, params)
        started = time.perf_counter()
        try:
            result = await call_next(ctx)
        except MCPError as error:
            entry.update(outcome="protocol_error", error_kind=f"jsonrpc_{error.error.code}", error=error.error.message)
            raise
        except Exception:
            entry.update(outcome="protocol_error", error_kind="internal", error="internal error")
            raise
        else:
            _describe(entry, trial, params, result)
        finally:
            current_rounds.reset(token)
            entry["rounds"] = _client_rounds(trial, params, entry) + rounds
            entry["latency_ms"] = round((time.perf_counter() - started) * 1000, 3)
            with trial.lock:
                entry["seq"] = len(trial.trace) + 1
                trial.trace.append(entry)
        if entry["outcome"] == "input_required":
            return result
        lost = await _play_events(trial, entry["tool"])
        if lost:
            entry["fault"] = "response_lost"
            raise MCPError(INTERNAL_ERROR, f"Internal error (reference {uuid.uuid4().hex[:12]}).")
        return result


def _entry(trial: Trial, ctx: ServerRequestContext[Any, Any], params: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "seq": 0,
        "world_time": iso_exact(clock.now()),
        "wall_time": iso_exact(clock.wall()),
        "caller": current_caller_id(),
        "tool": str(params.get("name")),
        "protocol": ctx.protocol_version,
        "arguments": dict(params.get("arguments") or {}),
        "resumed": bool(params.get("inputResponses")),
        "outcome": "ok",
        "error_kind": None,
        "rounds": [],
        "result": None,
        "error": None,
        "latency_ms": 0.0,
    }


def _describe(entry: dict[str, Any], trial: Trial, params: Mapping[str, Any], result: HandlerResult) -> None:
    """Fill in the outcome, the structured result or the error text, and the questions of an input_required."""
    data = result if isinstance(result, dict) else result.model_dump(by_alias=True) if result is not None else {}
    outcome, kind, _ = classify(result)
    entry.update(outcome=outcome, error_kind=kind, result=data.get("structuredContent"))
    if outcome == "tool_error":
        entry["error"] = "\n".join(str(part.get("text", "")) for part in data.get("content") or [])
    if outcome == "input_required":
        questions = {
            key: {"message": request["params"]["message"], "schema": request["params"].get("requestedSchema")}
            for key, request in (data.get("inputRequests") or {}).items()
            if isinstance(request, dict) and "params" in request
        }
        entry["rounds_asked"] = questions


def _client_rounds(trial: Trial, params: Mapping[str, Any], entry: dict[str, Any]) -> list[dict[str, Any]]:
    """Rounds the agent's client took part in: questions it was asked, and the answers a resumed call carries."""
    asked = entry.pop("rounds_asked", None)
    if asked is not None:
        return [{"questions": asked, "answers": {}, "answered_by": "client"}]
    answers = params.get("inputResponses")
    if not answers:
        return []
    previous = next((e for e in reversed(trial.trace) if e["tool"] == entry["tool"]), None)
    questions = previous["rounds"][0]["questions"] if previous and previous["rounds"] else {}
    return [{"questions": questions, "answers": dict(answers), "answered_by": "client"}]


async def _play_events(trial: Trial, tool: str) -> bool:
    """Play the events this call triggers; whether its response is to be lost."""
    with trial.lock:
        trial.done[tool] += 1
        count = trial.done[tool]
    due: list[Event] = [event for event in trial.start.events if event.after == tool and event.nth == count]
    for event in due:
        if event.advance:
            by = parse_duration(event.advance)
            trial.world = await anyio.to_thread.run_sync(trial.advance, trial.world.id, by)
    return any(event.lose_response for event in due)

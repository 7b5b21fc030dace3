"""A task's events, played by the server after a call in a trial's world returns: the clock moves, an answer is lost.

Tool middleware placed just inside the worlds tracer; calls outside a trial pass straight through. It also plays
the task's client: a task whose `world.client` says `url_mode: false` has the server see its calls as from a client
that did not declare URL-mode elicitation, whatever the agent's client declared.
"""

import threading
import uuid
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import anyio
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR

from aftersales.durations import parse_duration
from aftersales.mcp.recorder import classify
from aftersales.mcp.requests import tool_call
from aftersales.testing.tasks import Customer, WorldStart
from aftersales.worlds import context
from aftersales.worlds.trace import is_turn


@dataclass
class Trial:
    """One trial world as the harness serves it: how it started, who answers its forms, what the task did to it."""

    world_id: str
    start: WorldStart
    advance: Callable[[str, timedelta], None]  # moves the world's clock (and makes every process see it at once)
    customer: Customer | None = None  # answers the world's forms; None leaves them to the agent's client
    label: str = "a test"  # what the world is for (a task id), in diffs
    done: Counter[str] = field(default_factory=Counter)  # finished calls per tool, for the events
    lost: list[tuple[str, int]] = field(default_factory=list)  # (tool, nth call) whose answers were dropped
    moved: dict[tuple[str, int], str] = field(default_factory=dict)  # (tool, nth call) -> how far the clock moved
    lock: threading.Lock = field(default_factory=threading.Lock)


Trials = dict[str, Trial]


class TaskEvents:
    """Server middleware: after the nth call of a tool finishes in a trial world, play the task's events for it."""

    def __init__(self, trials: Trials) -> None:
        self._trials = trials

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Pass the call on; then advance the clock or lose the answer when the task says so."""
        params, world = tool_call(ctx), context.current()
        trial = self._trials.get(world.id) if world is not None and params is not None else None
        if trial is not None and trial.start.client is not None and not trial.start.client.url_mode:
            without_url_mode(ctx.session)
        result = await call_next(ctx)
        if trial is None or params is None or classify(result)[0] == "input_required":
            return result
        tool = str(params.get("name"))
        with trial.lock:
            trial.done[tool] += 1
            nth = trial.done[tool]
        due = [event for event in trial.start.events if event.after == tool and event.nth == nth]
        for event in due:
            if event.advance:
                trial.moved[(tool, nth)] = event.advance
                await anyio.to_thread.run_sync(trial.advance, trial.world_id, parse_duration(event.advance))
        if any(event.lose_response for event in due):
            trial.lost.append((tool, nth))
            # What a server that fails after committing says: the agent cannot tell whether the call took effect.
            raise MCPError(INTERNAL_ERROR, f"Internal error (reference {uuid.uuid4().hex[:12]}).")
        return result


def without_url_mode(session: ServerSession) -> None:
    """Take this connection's client as one without URL-mode elicitation (its forms, if any, stay)."""
    capabilities = session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    if capabilities is None or elicitation is None or elicitation.url is None:
        return
    limited = capabilities.model_copy(update={"elicitation": elicitation.model_copy(update={"url": None})})
    session._connection.client_capabilities = limited  # what every capability check of the call reads


def mark_faults(
    trace: list[dict[str, Any]], lost: list[tuple[str, int]], moved: Mapping[tuple[str, int], str] | None = None
) -> list[dict[str, Any]]:
    """The trace with the events the task played, on the calls they followed (counted as the events are).

    `fault: response_lost` on each call whose answer was dropped; `advanced: "31m"` on each call after which the
    world's clock was moved.
    """
    counts: Counter[str] = Counter()
    marked = []
    for entry in trace:
        entry = dict(entry)
        if not is_turn(entry) and entry.get("outcome") != "input_required":
            counts[entry["tool"]] += 1
            nth = (entry["tool"], counts[entry["tool"]])
            if nth in lost:
                entry["fault"] = "response_lost"
            if moved and nth in moved:
                entry["advanced"] = moved[nth]
        marked.append(entry)
    return marked

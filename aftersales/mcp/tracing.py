"""The trace of a world: every tools/call made in it, written before the answer leaves the server.

The middleware runs first, before the SDK's own (the requestState boundary among them), so it sees each call as
it crossed the wire, a refused requestState included. The entry is written on a worker thread while the response
waits, so a trace read after a call returned holds that call: nothing is batched, nothing dropped. Questions
asked mid-call are taken from what crosses the wire: on 2026-07-28 the `input_required` result and the retry's
`inputResponses`; on 2025-11-25 each `elicitation/create` the tool sends, seen through the request's session,
which this middleware hands on wrapped. A world may answer its own forms (a FormAnswerer, the seam for a scripted
customer): its answers never reach the client and are marked `answered_by: "script"`. It answers a URL question
too (the bank-account page, visited as the person would); the client then never hears of that question, not even
its completion notification. Requests outside a world are not traced.
"""

import functools
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import INTERNAL_ERROR, RequestId, ServerRequest
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from aftersales.clock import now, wall
from aftersales.mcp.caller import current_caller_id
from aftersales.mcp.forms import shows_forms
from aftersales.mcp.recorder import classify
from aftersales.mcp.requests import tool_call
from aftersales.storage.runner import DatabaseRunner
from aftersales.worlds import context
from aftersales.worlds.model import World, iso_exact
from aftersales.worlds.trace import (
    Answer,
    Draft,
    FormAnswerer,
    answers,
    for_tool,
    link,
    question,
    questions,
    state_digest,
)

log = logging.getLogger(__name__)
ResultT = TypeVar("ResultT", bound=BaseModel)
SCRIPTED_ROUNDS = 8  # rounds a world's script may answer in one call before the client is asked instead
Append = Callable[[World, Draft], object]
Script = Callable[[Mapping[str, Any]], Awaitable[Answer]]


class CallTracer:
    """The outermost server middleware: trace each tools/call made in a world."""

    def __init__(
        self, append: Append, answerer: FormAnswerer | None = None, database: DatabaseRunner | None = None
    ) -> None:
        self._append, self._answerer = append, answerer
        self._database = database or DatabaseRunner(on_loop=False)

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Trace tools/call requests in a world; pass everything else through."""
        params, world = tool_call(ctx), context.current()
        if params is None or world is None:
            return await call_next(ctx)
        draft = Draft(
            world=world.id,
            caller=current_caller_id(),
            tool=str(params.get("name")),
            protocol=ctx.protocol_version,
            request_id=ctx.request_id,
            arguments=to_jsonable_python(params.get("arguments"), fallback=str),
            started_at=iso_exact(now()),
            wall_started_at=iso_exact(wall()),
            client_forms=shows_forms(ctx.session.client_capabilities),
        )
        if params.get("inputResponses") is not None:
            draft.input_responses = answers(to_jsonable_python(params["inputResponses"], fallback=str))
            draft.state_in = state_digest(params.get("requestState"))
        started = time.perf_counter()
        ctx = replace(ctx, session=ObservedSession(ctx.session, draft.rounds, self._script_for(world)))
        try:
            result = await self._answered_by_script(world, ctx, params, await call_next(ctx), draft, call_next)
        except MCPError as error:
            draft.outcome, draft.error_kind = "protocol_error", f"jsonrpc_{error.error.code}"
            draft.error = {"code": error.error.code, "message": error.error.message}
            await self._write(world, draft, started, failing=True)
            raise
        except Exception:
            draft.outcome, draft.error_kind = "protocol_error", "internal"
            draft.error = {"code": INTERNAL_ERROR, "message": "internal error"}
            await self._write(world, draft, started, failing=True)
            raise
        describe(result, draft)
        await self._write(world, draft, started)
        return result

    def _script_for(self, world: World) -> Script | None:
        answerer = self._answerer
        if answerer is None:
            return None

        async def script(question: Mapping[str, Any]) -> Answer:
            answer = answerer(world.id, question)
            return await answer if inspect.isawaitable(answer) else answer

        return script

    async def _answered_by_script(
        self,
        world: World,
        ctx: ServerRequestContext[Any, Any],
        params: Mapping[str, Any],
        result: HandlerResult,
        draft: Draft,
        call_next: CallNext,
    ) -> HandlerResult:
        """On 2026-07-28, answer the world's own questions and run the next round here, while the script can."""
        script = self._script_for(world)
        for _ in range(SCRIPTED_ROUNDS):
            data = plain(result)
            if script is None or classify(result)[0] != "input_required":
                return result
            asked = questions(data.get("inputRequests"))
            requests = data.get("inputRequests") or {}
            given: dict[str, Answer] = {}
            for one in asked:  # a URL question's link goes to the script, never into the trace
                params_of = (requests.get(one["key"]) or {}).get("params") or {}
                given[one["key"]] = await script(one | {"url": link(params_of)} if one.get("mode") else one)
            if not asked or any(answer is None for answer in given.values()):
                return result  # what the script cannot answer, the client is asked
            recorded = answers(given, scripted=True)
            draft.rounds.append(
                {"via": "input_required", "questions": asked, "answers": recorded, "answered_by": "script"}
            )
            responses = {key: for_tool(answer) for key, answer in given.items() if answer is not None}
            params = {**params, "inputResponses": responses, "requestState": data.get("requestState")}
            result = await call_next(replace(ctx, params=params))
        return result

    async def _write(self, world: World, draft: Draft, started: float, failing: bool = False) -> None:
        draft.latency_ms = round((time.perf_counter() - started) * 1000, 3)
        try:
            await self._database.write(functools.partial(self._append, world, draft))
        except Exception:
            log.exception("could not write the trace entry of a call of %.64s in world %s", draft.tool, world.id)
            if failing:
                return  # the call fails anyway, with its own error
            raise MCPError(
                INTERNAL_ERROR,
                f"This call ran in world {world.id}, but its trace entry could not be written, so its result is "
                "withheld. World calls are always traced. This is retryable: send the same call again (with the same "
                "idempotency_key, a create replays its first result).",
            ) from None


def describe(result: HandlerResult, draft: Draft) -> None:
    """Fill in the outcome, and the result, the error or the questions, of what went back to the client."""
    data = plain(result)
    draft.outcome, draft.error_kind, draft.replayed = classify(result)
    if draft.outcome == "input_required":
        draft.input_requests = questions(data.get("inputRequests"))
        draft.state_out = state_digest(data.get("requestState"))
    elif draft.outcome == "tool_error":
        texts = [item.get("text") for item in data.get("content") or [] if isinstance(item, Mapping)]
        draft.error = {"kind": draft.error_kind, "message": "\n".join(text for text in texts if text)}
        structured = data.get("structuredContent")
        draft.error_code = structured.get("error_code") if isinstance(structured, Mapping) else None
    else:
        draft.result = data.get("structuredContent", data.get("content"))


def plain(result: HandlerResult) -> dict[str, Any]:
    """A result as the JSON the client receives."""
    data = to_jsonable_python(result, by_alias=True, exclude_none=True, fallback=str)
    return data if isinstance(data, dict) else {}


class ObservedSession(ServerSession):
    """The request's session, with each elicitation/create it sends added to the call's rounds with its answer."""

    def __init__(
        self,
        inner: ServerSession,
        rounds: list[dict[str, Any]],
        script: Script | None,
    ) -> None:
        self.__dict__.update(inner.__dict__)  # the same channels and connection; only send_request is observed
        self._rounds, self._script = rounds, script
        self._scripted_pages: set[str] = set()  # URL questions the script answered: the client never saw them

    async def send_request(
        self,
        request: ServerRequest,
        result_type: type[ResultT],
        request_read_timeout_seconds: float | None = None,
        metadata: ServerMessageMetadata | None = None,
        progress_callback: ProgressFnT | None = None,
    ) -> ResultT:
        """Send the request; an elicitation is recorded before it leaves (so one never answered still shows)."""
        if request.method != "elicitation/create":
            return await super().send_request(
                request, result_type, request_read_timeout_seconds, metadata, progress_callback
            )
        params = to_jsonable_python(request.params, by_alias=True, exclude_none=True, fallback=str)
        asked = question(None, request.method, params)
        round_: dict[str, Any] = {"via": "elicitation/create", "questions": [asked], "answers": None}
        round_["answered_by"] = None
        self._rounds.append(round_)
        scripted = None
        if self._script is not None:  # a URL question's link goes to the script, never into the trace
            scripted = await self._script(asked | {"url": link(params)} if "mode" in asked else asked)
        if scripted is not None:
            answer, round_["answered_by"] = result_type.model_validate(for_tool(scripted)), "script"
            if "mode" in asked:
                self._scripted_pages.add(str(params.get("elicitationId")))
        else:
            answer = await super().send_request(
                request, result_type, request_read_timeout_seconds, metadata, progress_callback
            )
            round_["answered_by"] = "client"
        given = answer.model_dump(mode="json", exclude_none=True)
        entry = {"key": None, "action": given.get("action"), "content": given.get("content")}
        if scripted is not None and scripted.get("page") is not None:
            entry["page"] = scripted["page"]
        round_["answers"] = [entry]
        return answer

    async def send_elicit_complete(self, elicitation_id: str, related_request_id: RequestId | None = None) -> None:
        """Tell the client a URL question is complete, unless the world's script answered it (it never saw it)."""
        if elicitation_id in self._scripted_pages:
            return
        await super().send_elicit_complete(elicitation_id, related_request_id)

"""A world's trace: one entry per tool call, in the order the calls finished (format aftersales-trace/1, pure).

An entry holds the call's arguments, its outcome, the structured result or the error, timing, and every round of
questions asked mid-call with the answers received and who gave them:

- 2026-07-28: an `input_required` result's `inputRequests` are questions; the retried call that carries the
  `requestState` of that result answers them in its `inputResponses`. The answering entry names the entry it
  `resumes` and holds the whole round, questions and answers; the asking entry holds the questions alone.
- 2025-11-25: each `elicitation/create` request sent mid-call is a round of one question, answered in the same call.

A round is answered by the `client`, or by a `script`: a FormAnswerer that answers a world's forms itself (the
seam for a scripted customer; see docs/worlds.md). A URL question (`mode: "url"`, the bank-account page) is recorded
without its link, which opens the page once; a script answers it by visiting the page, and its answer holds a
`page` record of what the page showed (the masked account and the payout reference, never the number).

A conversation trial adds turns to the same trace, numbered in the same sequence, so customer turns, tool calls and
form rounds read as one timeline: a turn has `"type": "turn"` (a call has no type), who spoke, the text, the facts
the customer revealed and the engine that played it. Readers that want calls only use `tool_calls`.
"""

import hashlib
import json
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

FORMAT = "aftersales-trace/1"
TURN = "turn"  # the type of a conversation turn; a tool call's entry has no type
SECRET_WORDS = ("token", "secret", "password", "authorization")


Answer = dict[str, Any] | None


class FormAnswerer(Protocol):
    """Answers a world's question itself (`{"action": …, "content": …}`), or returns None to leave it to the client.

    It may answer at once or be awaited (a URL question is answered by visiting the page). A URL question carries
    its `url` here only; an answer may add a `page` record, which goes into the trace and never to the tool.
    """

    def __call__(self, world_id: str, question: Mapping[str, Any]) -> Answer | Awaitable[Answer]: ...


@dataclass
class Draft:
    """What the tracer saw of one call, before the store numbers it and links it to the round it answers."""

    world: str
    caller: str
    tool: str
    protocol: str
    request_id: str | int | None
    arguments: Any
    started_at: str  # the world's clock when the call arrived
    wall_started_at: str
    client_forms: bool | None = None  # whether the client declared it can show forms; None: not known
    outcome: str = "ok"
    error_kind: str | None = None
    error_code: str | None = None  # the rule a refusal names (its structured content's error_code)
    replayed: bool = False
    result: Any = None
    error: dict[str, Any] | None = None
    input_requests: list[dict[str, Any]] | None = None
    input_responses: list[dict[str, Any]] | None = None
    rounds: list[dict[str, Any]] = field(default_factory=list)
    latency_ms: float = 0.0
    state_in: str | None = None  # digest of the requestState the call carried (it answers a round)
    state_out: str | None = None  # digest of the requestState its input_required result carried


def state_digest(state: object) -> str | None:
    """A digest of a requestState, linking an input_required answer to the retry that answers it."""
    if not isinstance(state, str) or not state:
        return None
    return hashlib.sha256(state.encode("utf-8", "surrogatepass")).hexdigest()


def questions(input_requests: object) -> list[dict[str, Any]]:
    """The questions of an input_required result, by key, as the client was asked them."""
    if not isinstance(input_requests, Mapping):
        return []
    asked = []
    for key, request in input_requests.items():
        params = request.get("params", {}) if isinstance(request, Mapping) else {}
        method = request.get("method") if isinstance(request, Mapping) else None
        asked.append(question(str(key), method, params))
    return asked


def question(key: str | None, method: object, params: Mapping[str, Any]) -> dict[str, Any]:
    """One question as the trace records it: a URL question is marked `mode: "url"` and kept without its link."""
    asked = {"key": key, "method": method, "message": params.get("message")}
    asked["requested_schema"] = params.get("requestedSchema")
    if params.get("mode") == "url":
        asked["mode"] = "url"
    return asked


def link(params: Mapping[str, Any]) -> str | None:
    """The link a URL question sends the person to (for a script to visit; the trace never keeps it)."""
    url = params.get("url") if params.get("mode") == "url" else None
    return url if isinstance(url, str) else None


def for_tool(answer: Mapping[str, Any]) -> dict[str, Any]:
    """A script's answer as the tool receives it: the elicitation result, without the trace's `page` record."""
    return {name: value for name, value in answer.items() if name != "page"}


def answers(input_responses: object, scripted: bool = False) -> list[dict[str, Any]]:
    """The answers a retried call carried, by key; a script's keep their `page` record (a client's never do)."""
    if not isinstance(input_responses, Mapping):
        return []
    given = []
    for key, response in input_responses.items():
        answer = response if isinstance(response, Mapping) else {}
        entry = {"key": str(key), "action": answer.get("action"), "content": answer.get("content")}
        given.append(entry | ({"page": answer["page"]} if scripted and answer.get("page") is not None else {}))
    return given


def redacted(arguments: Any) -> Any:
    """Arguments as sent, whole, with only secret-looking fields hidden (the trace keeps everything else)."""
    if isinstance(arguments, Mapping):
        return {
            str(name): "[redacted]" if any(word in str(name).lower() for word in SECRET_WORDS) else redacted(value)
            for name, value in arguments.items()
        }
    if isinstance(arguments, list):
        return [redacted(item) for item in arguments]
    return arguments


def complete(draft: Draft, seq: int, resumed: tuple[int, dict[str, Any]] | None) -> dict[str, Any]:
    """The entry as stored and exported, numbered `seq`; `resumed` is the (seq, entry) whose questions it answers."""
    rounds = list(draft.rounds)
    if draft.input_responses is not None:
        asked = resumed[1].get("input_requests") if resumed is not None else None
        answered = {"via": "input_required", "questions": asked or [], "answers": draft.input_responses}
        rounds.insert(0, answered | {"answered_by": "client"})
    if draft.input_requests is not None:  # asked in this call's result; the call that answers it holds the answers
        asking = {"via": "input_required", "questions": draft.input_requests}
        rounds.append(asking | {"answers": None, "answered_by": None})
    return {
        "format": FORMAT,
        "seq": seq,
        "world": draft.world,
        "started_at": draft.started_at,
        "wall_started_at": draft.wall_started_at,
        "caller": draft.caller,
        "protocol": draft.protocol,
        "request_id": draft.request_id,
        "tool": draft.tool,
        "client_forms": draft.client_forms,
        "arguments": redacted(draft.arguments),
        "outcome": draft.outcome,
        "error_kind": draft.error_kind,
        "error_code": draft.error_code,
        "replayed": draft.replayed,
        "result": draft.result,
        "error": draft.error,
        "input_requests": draft.input_requests,
        "resumes": resumed[0] if resumed is not None else None,
        "rounds": rounds,
        "latency_ms": draft.latency_ms,
    }


def turn(
    world: str,
    at: str,
    wall_at: str,
    speaker: str,
    text: str,
    revealed: Sequence[str] = (),
    engine: str = "",
    miss: bool = False,
    ended: bool = False,
    reason: str | None = None,
    **more: Any,
) -> dict[str, Any]:
    """One conversation turn as stored and exported (the store numbers it in the world's sequence).

    `more` are further fields an engine gave the turn (trace.TurnEntry names them), kept as given.
    """
    return more | {
        "format": FORMAT,
        "type": TURN,
        "world": world,
        "at": at,
        "wall_at": wall_at,
        "speaker": speaker,
        "text": text,
        "revealed": list(revealed),
        "engine": engine,
        "miss": miss,
        "ended": ended,
        "reason": reason,
    }


def is_turn(entry: Mapping[str, Any]) -> bool:
    """Whether a trace entry is a conversation turn rather than a tool call."""
    return entry.get("type") == TURN


def tool_calls(entries: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The tool-call entries of a trace, in order: its conversation turns left out."""
    return [entry for entry in entries if not is_turn(entry)]


def lines(entries: list[dict[str, Any]]) -> str:
    """The trace as JSON lines, one entry a line, in order."""
    return "".join(json.dumps(entry, ensure_ascii=False, sort_keys=True) + "\n" for entry in entries)

"""A trace for a person: each entry as a head line and labelled details, the one renderer of every trace view.

`timeline` decides what is shown of each call and turn (and of the events a task played: a dropped answer, a
clock moved); `describe` prints it as text (`aftersales world trace`, `aftersales trace view`, the admin API's
text), and the eval's HTML report (aftersales.testing.html) marks up the same items. Entries are read leniently,
so a trajectory written by an earlier version (fewer fields) still renders.
"""

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from aftersales.worlds.trace import is_turn

EMPTY = "(no tool calls in this world yet)"
Tone = Literal["", "asked", "answered", "error", "result", "event", "miss", "usage"]


@dataclass(frozen=True)
class Detail:
    """One labelled line under an entry; `value` is the JSON it shows, when it shows one."""

    label: str
    text: str
    tone: Tone = ""
    value: Any = None
    json: bool = False  # `value` is JSON to show whole (arguments, a result, an answer's content)


@dataclass(frozen=True)
class Shown:
    """One entry of the timeline: its seq, a call or a turn, its head line and its details."""

    seq: int
    kind: Literal["call", "turn"]
    head: str
    details: list[Detail] = field(default_factory=list)
    outcome: str = ""  # a call's outcome (ok, tool_error, ...); a turn's speaker
    tool: str = ""


def timeline(entries: Sequence[Mapping[str, Any]]) -> list[Shown]:
    """Every entry of a trace, in its order, as shown to a person."""
    return [_turn(entry) if is_turn(entry) else _call(entry) for entry in entries]


def describe(entries: Sequence[Mapping[str, Any]], width: int = 160) -> str:
    """The trace as text: a line per call or turn, then what it was given, gave back, asked and played."""
    if not entries:
        return EMPTY
    out: list[str] = []
    for shown in timeline(entries):
        out.append(shown.head)
        out += [_cut(f"    {_line(detail)}", width) for detail in shown.details]
    return "\n".join(out)


def _call(entry: Mapping[str, Any]) -> Shown:
    """A call: seq, clock, caller, tool and outcome; its arguments, rounds, events, and the error or result."""
    head = f"#{entry.get('seq')}  {entry.get('started_at')}  {entry.get('caller')}  {entry.get('tool')}"
    head += f"  {entry.get('outcome')}"
    kind = f" ({entry['error_kind']})" if entry.get("error_kind") else ""
    replay = ", replayed" if entry.get("replayed") else ""
    resumes = f", answers #{entry['resumes']}" if entry.get("resumes") else ""
    latency = float(entry.get("latency_ms") or 0.0)
    head = f"{head}{kind}{replay}{resumes}  {latency:.1f} ms  [{entry.get('protocol')}]"
    details = [Detail("arguments", _json(entry.get("arguments")), value=entry.get("arguments"), json=True)]
    for round_ in entry.get("rounds") or []:
        for question in round_.get("questions") or []:
            key = f"{question['key']} " if question.get("key") else ""
            details.append(Detail(f"asked {key}({round_.get('via')})", str(question.get("message")), "asked"))
        for answer in round_.get("answers") or []:
            given = f"{answer.get('action')} {_json(answer.get('content'))}"
            details.append(Detail(f"answered by {round_.get('answered_by')}", given, "answered"))
        if round_.get("answers") is None:
            details.append(Detail("", "(not answered in this call)", "asked"))
    if entry.get("error"):
        details.append(Detail("error", str(entry["error"].get("message")), "error", entry["error"].get("message")))
    elif entry.get("result") is not None:
        details.append(Detail("result", _json(entry["result"]), "result", entry["result"], json=True))
    if entry.get("fault") == "response_lost":
        lost = "the task dropped this call's answer: it took effect, the agent got an error"
        details.append(Detail("event", lost, "event"))
    if entry.get("advanced"):
        moved = f"the task moved the world's clock {entry['advanced']} on after this call"
        details.append(Detail("event", moved, "event"))
    return Shown(int(entry.get("seq") or 0), "call", head, details, str(entry.get("outcome")), str(entry.get("tool")))


def _turn(entry: Mapping[str, Any]) -> Shown:
    """A turn: who said it and when, then what was said, what it revealed, and whether it ended the conversation."""
    speaker = str(entry.get("speaker"))
    engine = f"  [{entry['engine']}]" if speaker == "customer" and entry.get("engine") else ""
    details = [Detail("", _json(entry.get("text")), value=entry.get("text"))]
    if entry.get("revealed"):
        details.append(Detail("revealed", ", ".join(entry["revealed"])))
    if entry.get("miss"):
        details.append(Detail("customer miss", "the customer could not map the agent's message to anything", "miss"))
    if entry.get("ended"):
        details.append(Detail("", f"ended the conversation ({entry.get('reason') or 'no reason given'})", "event"))
    if entry.get("usage"):
        used = entry["usage"]
        cost = f", ${used['cost_usd']}" if used.get("cost_usd") is not None else ""
        spent = f"{used['input_tokens']} tokens in, {used['output_tokens']} out{cost}"
        details.append(Detail("", f"{used['model']} (prompt {used['prompt_version']}): {spent}", "usage"))
    head = f"#{entry.get('seq')}  {entry.get('at')}  {speaker} says{engine}"
    return Shown(int(entry.get("seq") or 0), "turn", head, details, speaker)


def _line(detail: Detail) -> str:
    return f"{detail.label}: {detail.text}" if detail.label else detail.text


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"

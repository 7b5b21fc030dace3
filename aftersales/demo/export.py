"""A run as a file to keep or share: its events as JSON, or a Markdown account of each column's three panes.

Neither carries a bearer token: the request snippets (which hold one) are left out, and no event has one.
"""

import json
from typing import Any

from aftersales.demo.cases import BY_KEY
from aftersales.demo.stage import Run

LEFT_OUT = ("snippets",)  # "Copy as curl / Python" carry the column's bearer token


def as_json(run: Run, target: str | None) -> dict[str, Any]:
    """The run's case, where it ran, and every event as the page received it, without tokens."""
    case = BY_KEY[run.case]
    events = [{name: value for name, value in event.items() if name not in LEFT_OUT} for event in run.events]
    return {
        "run": run.id,
        "case": case.key,
        "title": case.title,
        "summary": case.summary,
        "server": target or "the demo's own server (a fresh fork of the demo world per column)",
        "revisions": run.revisions,
        "events": events,
    }


def as_markdown(run: Run, target: str | None) -> str:
    """The run told column by column: the wire (time, direction, message), what the person saw, what the model got."""
    exported = as_json(run, target)
    case = BY_KEY[run.case]
    lines = [f"# {case.title}", "", case.summary, "", f"Run {run.id} on {exported['server']}.", ""]
    lines += [f"{number}. {text}" for number, (_, text) in enumerate(case.steps, 1)]
    for revision in run.revisions:
        events = [event for event in exported["events"] if event.get("column") == revision]
        lines += ["", f"## Protocol {revision}", "", "### The wire", ""]
        lines += [_wire_line(event) for event in events if event["type"] == "wire" and event.get("kind") != "status"]
        lines += ["", "### The person", ""]
        lines += [line for event in events for line in _person_lines(event)] or ["(nothing was asked)"]
        lines += ["", "### The model", ""]
        lines += [line for event in events if event["type"] == "result" for line in _result_lines(event)]
    return "\n".join(lines) + "\n"


def _wire_line(event: dict[str, Any]) -> str:
    """One wire row: the time since the run started, the direction, and what the message is."""
    arrow = "→" if event.get("direction") == "out" else "←"
    return f"- `+{event['ms'] / 1000:.2f} s` {arrow} {_summary(event)}"


def _summary(event: dict[str, Any]) -> str:
    if event.get("kind") == "http":
        return f"HTTP {event.get('http')} (no JSON-RPC message)"
    message = event.get("message") or {}
    ident = f" id {message['id']}" if "id" in message else ""
    if "method" in message:
        params = message.get("params") or {}
        name = f" {params['name']}" if message["method"] == "tools/call" and "name" in params else ""
        retry = " (retry with requestState)" if "requestState" in params else ""
        arguments = f" `{json.dumps(params['arguments'], ensure_ascii=False)}`" if "arguments" in params else ""
        return f"`{message['method']}`{ident}{name}{retry}{arguments}"
    if "error" in message:
        return f"error {message['error'].get('code')}{ident}: {message['error'].get('message')}"
    result = message.get("result") or {}
    if result.get("resultType") == "input_required":
        return f"`input_required`{ident}: {', '.join(result.get('inputRequests') or {})}"
    if "action" in result:
        content = f" `{json.dumps(result['content'], ensure_ascii=False)}`" if result.get("content") else ""
        return f"answer{ident}: {result['action']}{content}"
    outcome = (result.get("structuredContent") or {}).get("outcome")
    return (
        f"result{ident}"
        + (f": isError {str(result['isError']).lower()}" if "isError" in result else "")
        + (f", outcome {outcome}" if outcome else "")
    )


def _person_lines(event: dict[str, Any]) -> list[str]:
    if event["type"] == "ask":
        return [f"- Asked ({question['key']}): {question['message']}" for question in event["questions"]]
    if event["type"] == "answered":
        contents = f" `{json.dumps(event['contents'], ensure_ascii=False)}`" if event["action"] == "accept" else ""
        return [f"- Answered: {event['action']}{contents}"]
    if event["type"] == "result":
        return [f"- Told: {event['person']}"]
    return []


def _result_lines(event: dict[str, Any]) -> list[str]:
    if "error" in event:
        return [f"- JSON-RPC error {event['error']['code']}: {event['error']['message']}"]
    structured = event.get("structured") or {}
    head = f"- {event['tool']}: isError {str(event['is_error']).lower()}"
    if structured.get("outcome"):
        head += f", outcome {structured['outcome']}"
    return [head, "", "  ```", *(f"  {line}" for line in (event.get("text") or "").splitlines()), "  ```"]

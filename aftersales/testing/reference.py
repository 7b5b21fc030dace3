"""Replaying a task's reference solution: the calls a correct agent makes, through the real MCP client over HTTP.

In a conversation trial the reference's `say` steps are the agent's turns, posted to the customer by `say`; in a
brief-mode trial there is nobody to talk to, and they are skipped.
"""

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from aftersales.testing.customer import elicitation_callback
from aftersales.testing.tasks import REFERENCE, SAVED, Step, Task

Say = Callable[[str], Awaitable[str]]  # posts an agent turn to the customer, returns the customer's reply


@dataclass(frozen=True)
class StepResult:
    """What one reference call came to, and whether that is what the step expects."""

    step: Step
    outcome: str  # ok, tool_error, protocol_error; said (a say step posted) or skipped (one in brief mode)
    text: str  # what the call returned, or the customer's reply

    @property
    def as_expected(self) -> bool:
        """The step has no expectation, or met it."""
        return self.step.expect is None or self.step.expect == self.outcome


def resolve(value: Any, saved: dict[str, Any]) -> Any:
    """An argument with "${name.path}" replaced by that field of a saved result (keeping its type)."""
    if isinstance(value, dict):
        return {key: resolve(item, saved) for key, item in value.items()}
    if isinstance(value, list):
        return [resolve(item, saved) for item in value]
    match = REFERENCE.match(value) if isinstance(value, str) else None
    if match is None:
        return value
    return _field(match, saved)


def spoken(text: str, saved: dict[str, Any]) -> str:
    """A say step's text with each "${name.path}" in it replaced by that field of a saved result, as text."""
    return SAVED.sub(lambda match: str(_field(match, saved)), text)


def _field(match: re.Match[str], saved: dict[str, Any]) -> Any:
    """The field of a saved result that a "${name.path}" names."""
    name, path = match.group(1), match.group(2)
    if name not in saved:
        raise KeyError(f"${{{name}.{path}}} names a result no earlier step saved")
    found: Any = saved[name]
    for part in path.split("."):
        found = found[int(part)] if isinstance(found, list) else found[part]
    return found


async def replay(task: Task, url: str, token: str, say: Say | None = None, protocol: str = "auto") -> list[StepResult]:
    """Take the reference's steps in order; a failing call does not stop the later ones (a retry may follow).

    `say` posts a say step to the customer (a conversation trial); without it, say steps are skipped (brief mode).
    `protocol` is the client's mode: "auto" (2026-07-28) or "legacy" (2025-11-25, with its initialize handshake).
    """
    saved: dict[str, Any] = {}
    results = []
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        # A client that can show forms: the world answers them as the customer (or, left to the client, this does).
        Client(
            streamable_http_client(url, http_client=http),
            mode=protocol,
            elicitation_callback=elicitation_callback(task.customer),
        ) as client,
    ):
        for step in task.reference:
            if step.say is not None:
                said = await say(spoken(step.say, saved)) if say is not None else ""
                results.append(StepResult(step, "said" if say is not None else "skipped", said))
                continue
            assert step.call is not None  # a step is a call or a say (Step checks)
            arguments = resolve(step.arguments, saved)
            try:
                result = await client.call_tool(step.call, arguments)
            except MCPError as error:
                results.append(StepResult(step, "protocol_error", error.error.message))
                continue
            text = " ".join(getattr(part, "text", "") for part in result.content)
            results.append(StepResult(step, "tool_error" if result.is_error else "ok", text))
            if step.save and result.structured_content is not None:
                saved[step.save] = result.structured_content
    return results

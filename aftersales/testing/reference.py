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
from aftersales.testing.tls import verified

Say = Callable[[str], Awaitable[str]]  # posts an agent turn to the customer, returns the customer's reply


@dataclass(frozen=True)
class StepResult:
    """What one reference call came to, and whether that is what the step expects."""

    step: Step
    # ok, tool_error, protocol_error; said (a say step posted), skipped (one in brief mode), or not_run (a saved
    # result it names is missing: the call that saves it failed, or has no such field)
    outcome: str
    text: str  # what the call returned, the customer's reply, or why the step was not run

    @property
    def as_expected(self) -> bool:
        """The step was run and has no expectation, or met it."""
        return self.outcome != "not_run" and (self.step.expect is None or self.step.expect == self.outcome)


class Unresolved(KeyError):
    """A "${name.path}" whose saved result, or whose field in it, is not there."""

    def __init__(self, name: str, reference: str, why: str) -> None:
        super().__init__(f"{reference} {why}")
        self.name, self.reference = name, reference

    def __str__(self) -> str:
        return str(self.args[0])


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
        raise Unresolved(name, f"${{{name}.{path}}}", "names a result no earlier step saved")
    found: Any = saved[name]
    for part in path.split("."):
        try:
            found = found[int(part)] if isinstance(found, list) else found[part]
        except (LookupError, TypeError, ValueError):
            raise Unresolved(name, f"${{{name}.{path}}}", f"names no {part!r} in the result saved as {name}") from None
    return found


async def replay(task: Task, url: str, token: str, say: Say | None = None, protocol: str = "auto") -> list[StepResult]:
    """Take the reference's steps in order; a failing call does not stop the later ones (a retry may follow).

    `say` posts a say step to the customer (a conversation trial); without it, say steps are skipped (brief mode).
    `protocol` is the client's mode: "auto" (2026-07-28) or "legacy" (2025-11-25, with its initialize handshake).
    """
    saved: dict[str, Any] = {}
    results: list[StepResult] = []
    savers: dict[str, int] = {}  # name -> the index in results of the latest step saving it
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30, verify=verified()) as http,
        # A client that can show forms: the world answers them as the customer (or, left to the client, this does).
        Client(
            streamable_http_client(url, http_client=http),
            mode=protocol,
            elicitation_callback=elicitation_callback(task.customer),
        ) as client,
    ):
        for step in task.reference:
            try:
                text = spoken(step.say, saved) if step.say is not None else ""
                arguments = resolve(step.arguments, saved)
            except Unresolved as missing:
                results.append(StepResult(step, "not_run", _unresolved(missing, results, savers)))
                continue
            if step.say is not None:
                said = await say(text) if say is not None else ""
                results.append(StepResult(step, "said" if say is not None else "skipped", said))
                continue
            assert step.call is not None  # a step is a call or a say (Step checks)
            if step.save:
                savers[step.save] = len(results)
            try:
                result = await client.call_tool(step.call, arguments)
            except MCPError as error:
                results.append(StepResult(step, "protocol_error", error.error.message))
                continue
            text = " ".join(getattr(part, "text", "") for part in result.content)
            results.append(StepResult(step, "tool_error" if result.is_error else "ok", text))
            if step.save and result.structured_content is not None and not result.is_error:
                saved[step.save] = result.structured_content
    return results


def _unresolved(missing: Unresolved, results: list[StepResult], savers: dict[str, int]) -> str:
    """Why a step was not run: what it names is missing, because of what the call saving it came to, if it failed."""
    source = results[savers[missing.name]] if missing.name in savers else None
    if source is None or source.outcome == "ok":
        return f"not run: {missing}"
    return (
        f"not run: {missing.reference} names the result of reference step {savers[missing.name] + 1} "
        f"({source.step.call}), which came to {source.outcome}: {source.text}"
    )

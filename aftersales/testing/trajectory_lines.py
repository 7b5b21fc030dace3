"""The shape of a trajectory line: one entry of a world's trace (format aftersales-trace/1, written by worlds).

A line is a tool call (`TraceEntry`, with no `type`: trajectories written before conversations read as they did) or
a conversation turn (`TurnEntry`, `"type": "turn"`). The worlds tracer (aftersales.worlds.trace) writes the
entries; `aftersales eval` adds `fault` where the task dropped a call's answer and `advanced` where it moved the
world's clock after a call. trajectory.schema.json is generated
from `TrajectoryLine`, and the tests validate real trajectories against it, so a change of the format shows up here.
"""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel


class Closed(BaseModel):
    """Trace parts admit no other keys."""

    model_config = ConfigDict(extra="forbid")


class Question(Closed):
    """A form the server asked for: its key (none on 2025-11-25), the message and the schema."""

    key: str | None
    method: str | None
    message: str | None
    requested_schema: dict[str, Any] | None


class Answer(Closed):
    """What came back for a question: accept with content, decline or cancel."""

    key: str | None
    action: str | None
    content: dict[str, Any] | None


class Round(Closed):
    """Questions asked during a call and their answers (none yet when a later call answers them)."""

    via: Literal["input_required", "elicitation/create"]
    questions: list[Question]
    answers: list[Answer] | None
    answered_by: Literal["client", "script"] | None = Field(
        description="client: the agent's MCP client answered; script: the world answered from the task's customer."
    )


class TraceEntry(Closed):
    """One tools/call as the world saw it."""

    format: Literal["aftersales-trace/1"]
    type: Literal["call"] | None = Field(default=None, description="Left out of a call's entry (a turn says turn).")
    seq: int = Field(ge=1, description="Order in the world's trace.")
    world: str
    started_at: str = Field(description="The world's clock when the call arrived.")
    wall_started_at: str
    caller: str
    protocol: str | None
    request_id: str | int | None
    tool: str
    client_forms: bool | None = Field(
        default=None,
        description="Whether the client declared it can show forms (so the server could ask the person mid-call).",
    )
    arguments: Any
    outcome: Literal["ok", "tool_error", "protocol_error", "input_required"]
    error_kind: str | None
    error_code: str | None = Field(
        default=None, description="The business rule a refusal names (error_kind rule): the tool error's error_code."
    )
    replayed: bool
    result: Any = Field(description="The structured result of a call that succeeded.")
    error: dict[str, Any] | None = Field(description="{kind, message} of a tool error, {code, message} otherwise.")
    input_requests: list[Question] | None
    resumes: int | None = Field(description="The seq of the call whose questions this retry answers.")
    rounds: list[Round]
    latency_ms: float
    fault: Literal["response_lost"] | None = Field(
        default=None, description="The call took effect but the task dropped its answer (a simulated timeout)."
    )
    advanced: str | None = Field(
        default=None, description="How far the task moved the world's clock after this call (a duration: 31m, 2d)."
    )


class Spent(Closed):
    """What a model's replies cost: requests, tokens, and the price in US dollars when every reply's is known."""

    requests: int = Field(ge=0)
    input_tokens: int = Field(ge=0)
    output_tokens: int = Field(ge=0)
    cost_usd: str | None = Field(
        pattern=r"^[0-9]+(\.[0-9]+)?$",
        description="US dollars as an exact decimal; null when the provider's price of some reply is not known.",
    )


class TurnUsage(Spent):
    """One model reply: the model and the prompt's version hash, with what it cost."""

    model: str
    prompt_version: str = Field(description="The first 12 hex digits of the SHA-256 of the prompt's template.")


class Divergence(Closed):
    """Where a replayed conversation left its recording: the agent said something else, or more."""

    recorded: str | None = Field(
        description="What the agent said at this turn in the recorded trial; null when it said nothing more there."
    )


class TurnEntry(Closed):
    """One turn of a conversation trial: the agent's message to the customer, or the customer's."""

    format: Literal["aftersales-trace/1"]
    type: Literal["turn"]
    seq: int = Field(ge=1, description="Order in the world's trace, in the same sequence as the tool calls.")
    world: str
    at: str = Field(description="The world's clock when the turn was said.")
    wall_at: str
    speaker: Literal["agent", "customer"]
    text: str
    revealed: list[str] = Field(description="The facts the customer gave in this turn (names from the task).")
    engine: str = Field(description="What played the customer: scripted, or another engine.")
    miss: bool = Field(description="The customer could not map the agent's message to anything (a customer miss).")
    ended: bool = Field(description="The customer ended the conversation with this turn.")
    reason: Literal["need_met", "refused_and_told", "nothing_left", "turn_limit", "stopped_answering"] | None
    usage: TurnUsage | None = Field(
        default=None, description="What the model's reply cost (a customer played by a model); absent otherwise."
    )
    diverged: Divergence | None = Field(
        default=None,
        description="Only on the first customer turn a replay's fallback engine played: the agent's message before "
        "it was not the recorded one (`--customer replay:DIR`).",
    )


class TrajectoryLine(RootModel[TraceEntry | TurnEntry]):
    """One line of a trajectory: a tool call or a conversation turn."""

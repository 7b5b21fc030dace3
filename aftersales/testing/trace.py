"""The trace of an episode (format aftersales-trace/1): one entry per tools/call, with its rounds of questions.

A trajectory file is these entries as JSON lines. `TraceEntry` is the documented shape; trajectory.schema.json is
generated from it.
"""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

FORMAT = "aftersales-trace/1"
Outcome = Literal["ok", "tool_error", "protocol_error", "input_required"]


class Round(BaseModel):
    """Questions the server asked during a call, and the answers it got."""

    model_config = ConfigDict(extra="forbid")

    questions: dict[str, Any] = Field(description="By question key: {message, schema} as the person saw it.")
    answers: dict[str, Any] = Field(description="By question key: {action, content}.")
    answered_by: Literal["client", "scripted_customer"] = Field(
        description="client: the agent's MCP client answered (an elicitation callback, a person); scripted_customer: "
        "the world answered from the task's customer script."
    )


class TraceEntry(BaseModel):
    """One tools/call as the world saw it."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["aftersales-trace/1"] = "aftersales-trace/1"
    seq: int = Field(ge=1, description="Arrival order in the world.")
    world_time: str = Field(description="The world's clock when the call arrived, ISO 8601 UTC.")
    wall_time: str = Field(description="The wall clock when the call arrived, ISO 8601 UTC.")
    caller: str
    tool: str
    protocol: str | None = Field(description="The MCP protocol revision of the request.")
    arguments: dict[str, Any]
    resumed: bool = Field(description="A retry carrying answers to an input_required round (not a new call).")
    outcome: Outcome
    error_kind: str | None = Field(description="tool_error: the server's error kind; protocol_error: jsonrpc_<code>.")
    rounds: list[Round] = Field(default_factory=list)
    result: dict[str, Any] | None = Field(description="The structured result, when there is one.")
    error: str | None = Field(description="The error text a failed call returned.")
    latency_ms: float
    fault: Literal["response_lost"] | None = Field(
        default=None, description="response_lost: the call took effect but the task dropped its answer (a timeout)."
    )

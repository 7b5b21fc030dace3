"""The parts of a conversation trial: what the customer replied, and one turn of the timeline."""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from aftersales.testing.llm import Usage
    from aftersales.testing.tasks import Customer

Speaker = Literal["agent", "customer"]
EndReason = Literal["need_met", "refused_and_told", "nothing_left", "turn_limit", "stopped_answering"]


@dataclass(frozen=True)
class Reply:
    """The customer's answer to one agent message."""

    text: str
    revealed: tuple[str, ...] = ()  # fact names given in this reply (see "Fact names")
    ended: bool = False  # the customer has ended the conversation with this reply
    reason: EndReason | None = None  # why, when ended
    miss: bool = False  # the engine could not map the agent's message to anything (a customer miss)
    usage: "Usage | None" = None  # what a model's reply cost (an engine played by a model)
    # More fields for this reply's turn in the trace, written as given (a replayed turn's recorded `usage`, or
    # `diverged` on the first turn a replay's fallback plays); the fields above are always the channel's.
    facts: Mapping[str, Any] = field(default_factory=dict)


class CustomerEngine(Protocol):
    """Plays the task's customer: deterministic for the scripted engine (same message, same reply)."""

    name: str  # "scripted", "llm", …: read for each turn it plays, so it may change mid-way (a replay's fallback)

    def opening(self) -> str: ...  # the customer's first message

    def reply(self, message: str) -> Reply: ...  # the engine keeps its own state (turn count, what it said)


@runtime_checkable
class ChangesMind(Protocol):
    """An engine whose customer can change their mind: it hands the changed customer to `on_change`."""

    on_change: "Callable[[Customer], None] | None"


@runtime_checkable
class Resumes(Protocol):
    """An engine that can take over a conversation part-way: told what was said so far, it says nothing itself.

    A replay's fallback that has no `resume` is brought up to date by hearing the agent's messages so far through
    `reply`, its answers discarded (free for the scripted customer; an engine paying per reply should resume).
    """

    def resume(self, opening: str, exchanges: Sequence[tuple[str, Reply]]) -> None: ...

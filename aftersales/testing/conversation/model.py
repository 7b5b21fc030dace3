"""The parts of a conversation trial: what the customer replied, and one turn of the timeline."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

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


class CustomerEngine(Protocol):
    """Plays the task's customer: deterministic for the scripted engine (same message, same reply)."""

    name: str  # "scripted" (later "llm", "replay")

    def opening(self) -> str: ...  # the customer's first message

    def reply(self, message: str) -> Reply: ...  # the engine keeps its own state (turn count, what it said)


@runtime_checkable
class ChangesMind(Protocol):
    """An engine whose customer can change their mind: it hands the changed customer to `on_change`."""

    on_change: "Callable[[Customer], None] | None"

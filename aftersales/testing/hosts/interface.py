"""The harness's host interface: a fresh world per trial, its diff, trace and clock, wherever the server runs.

Two hosts implement it: `in_process.Host` serves the worlds in this process (every task field, forms answered by the
world), `remote.RemoteHost` drives a running server's /admin/worlds API (an existing URL, or one the plugin
started as a subprocess). The plugin's fixtures and the trial runner only speak this interface.
"""

from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Self

from aftersales.testing.brief import Mode
from aftersales.testing.conversation.channel import Conversation
from aftersales.testing.conversation.model import CustomerEngine
from aftersales.testing.customer import settled
from aftersales.testing.events import Trial
from aftersales.testing.tasks import Customer, Task, WorldStart

NO_CHANNEL = (
    "Conversation trials need the in-process server: the customer channel is served by the harness's own server, "
    "and a running server (--aftersales-url, or --aftersales-server subprocess) has none yet. Run them on the "
    'in-process server (leave those options out), or use mode="brief".'
)
CALLER = "agent"  # every trial's caller: the owner of its quotes and scope of its keys, the same in every world
TOKEN_TTL = timedelta(hours=12)


@dataclass(frozen=True)
class TrialWorld:
    """What an agent gets for one trial, and what the harness reads back."""

    trial: Trial
    url: str
    token: str

    @property
    def id(self) -> str:
        """The world's id."""
        return self.trial.world_id


class NoChannel(Exception):
    """This host cannot serve a conversation's customer channel."""


class TrialHost(ABC):
    """Opens trial worlds and reads them back; use as a context manager (`with SomeHost(...) as host`)."""

    channels = False  # whether this host serves customer channels (conversation trials)

    def open_trial(self, task: Task, scripted_forms: bool = True, mode: Mode = "brief") -> TrialWorld:
        """A fresh world for one trial of `task`; `scripted_forms`: the world answers its forms as the customer.

        A brief shows the customer settled (every change of mind made), so in brief mode the forms answer as that
        customer; in a conversation they start as the task's customer and follow the engine's changes of mind.
        """
        customer = task.customer if mode == "conversation" else settled(task.customer)
        return self.open(task.world, customer if scripted_forms else None, task.id)

    @abstractmethod
    def open(self, start: WorldStart, customer: Customer | None = None, label: str = "a test") -> TrialWorld:
        """A fresh world as `start` describes, ready for an agent; `customer` answers its forms (else the client)."""

    def converse(self, trial: TrialWorld, engine: CustomerEngine, turn_limit: int) -> tuple[Conversation, str]:
        """Start the trial's conversation with `engine` playing the customer: the conversation and its channel's URL."""
        raise NoChannel(NO_CHANNEL)

    @abstractmethod
    def diff(self, trial: TrialWorld) -> dict[str, Any]:
        """The trial world against its start (format aftersales-world-diff/1)."""

    @abstractmethod
    def trace(self, trial: TrialWorld) -> list[dict[str, Any]]:
        """The world's trace (aftersales-trace/1)."""

    @abstractmethod
    def advance_world(self, world_id: str, by: timedelta) -> None:
        """Move a world's clock forward."""

    @abstractmethod
    def answer_forms(self, trial: TrialWorld, customer: Customer) -> None:
        """From now on the world answers its own forms as `customer` would."""

    @abstractmethod
    def close_trial(self, trial: TrialWorld) -> None:
        """Drop the trial's world."""

    @abstractmethod
    def close(self) -> None:
        """Drop every world this host made, and stop what it started."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

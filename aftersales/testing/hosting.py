"""The harness's host interface: a fresh world per trial, its diff, trace and clock, wherever the server runs.

Two hosts implement it: `host.Host` serves the worlds in this process (every task field, forms answered by the
world), `remote.RemoteHost` drives a running server's /admin/worlds API (an existing URL, or one the plugin
started as a subprocess). The plugin's fixtures and the trial runner only speak this interface.
"""

from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Self

from aftersales.testing.events import Trial
from aftersales.testing.tasks import Customer, Task, WorldStart

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


class TrialHost(ABC):
    """Opens trial worlds and reads them back; use as a context manager (`with SomeHost(...) as host`)."""

    def open_trial(self, task: Task, scripted_forms: bool = True) -> TrialWorld:
        """A fresh world for one trial of `task`; `scripted_forms`: the world answers its forms as the customer."""
        return self.open(task.world, task.customer if scripted_forms else None, task.id)

    @abstractmethod
    def open(self, start: WorldStart, customer: Customer | None = None, label: str = "a test") -> TrialWorld:
        """A fresh world as `start` describes, ready for an agent; `customer` answers its forms (else the client)."""

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

"""The brief an agent gets for one trial: the JSON file named by AFTERSALES_TASK_FILE.

A brief-mode trial's `Brief` holds what the customer says, knows and wants, and how they answer forms. A
conversation trial's `ConversationBrief` holds only the customer's opening message, the world's time, the trial and
how forms are answered: what the customer knows and wants the agent must ask them (AFTERSALES_CUSTOMER_URL). Neither
ever holds the expected outcome, the call rules or the reference solution. brief.schema.json and
conversation-brief.schema.json are generated from them.
"""

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from aftersales.testing.customer import for_brief, settled
from aftersales.testing.tasks import Customer, FormAnswer, Task

if TYPE_CHECKING:
    from aftersales.testing.conversation.client import CustomerClient

FORMAT = "aftersales-task-brief/1"
CONVERSATION_FORMAT = "aftersales-conversation-brief/1"
Mode = Literal["brief", "conversation"]
FORMS = Field(
    description="world: the server answers its forms from the task's script itself; client: the agent's MCP client "
    "must answer them (form_answers, or customer.forms in a brief, says how the customer would)."
)


class TrialHeader(BaseModel):
    """What every brief says of its trial: the task, which trial, the world's time and who answers forms."""

    model_config = ConfigDict(extra="forbid")

    task_id: str = Field(description="The task's id; stable across trials (a good prefix for idempotency keys).")
    title: str
    trial: int = Field(ge=1, description="Which trial of the task this is.")
    world_time: str = Field(description="The world's (frozen) time at the start, ISO 8601 UTC.")
    forms: Literal["world", "client"] = FORMS


class Brief(TrialHeader):
    """One trial's brief."""

    format: Literal["aftersales-task-brief/1"] = "aftersales-task-brief/1"
    customer: Customer
    mention: list[str] = Field(description="Facts the final answer to the customer should mention.")


def brief_for(task: Task, trial: int, forms: Literal["world", "client"]) -> Brief:
    """The brief of one trial of `task`."""
    at = task.world.clock.strftime("%Y-%m-%dT%H:%M:%SZ")
    return Brief(
        task_id=task.id,
        title=task.title,
        trial=trial,
        world_time=at,
        forms=forms,
        customer=_shown(settled(task.customer)),  # no conversation to make their mistakes or change their mind in
        mention=task.mention,
    )


def _shown(customer: Customer) -> Customer:
    """The customer as a brief shows them: their answers on the bank-account page left out."""
    return customer.model_copy(update={"forms": for_brief(customer.forms)})


class ConversationBrief(TrialHeader):
    """One conversation trial's brief: the opening line only; the rest the agent learns by asking the customer."""

    format: Literal["aftersales-conversation-brief/1"] = "aftersales-conversation-brief/1"
    opening: str = Field(description="The customer's first message; answer it at AFTERSALES_CUSTOMER_URL.")
    form_answers: dict[str, FormAnswer] = Field(
        default_factory=dict,
        description="With forms=client only: how the customer answers each form, by question key (a form is the "
        "person's own answer, which the agent's client shows them).",
    )
    _customer: "CustomerClient | None" = PrivateAttr(default=None)

    @property
    def customer(self) -> "CustomerClient":
        """The channel to the customer (`say(text) -> Reply`), in the plugin; a file's reader posts to the URL."""
        if self._customer is None:
            raise RuntimeError("this brief has no customer attached: post to AFTERSALES_CUSTOMER_URL instead")
        return self._customer


def conversation_brief_for(
    task: Task, trial: int, forms: Literal["world", "client"], customer: "CustomerClient | None" = None
) -> ConversationBrief:
    """The conversation brief of one trial of `task`; `customer` is the plugin's client of the trial's channel."""
    brief = ConversationBrief(
        task_id=task.id,
        title=task.title,
        trial=trial,
        world_time=task.world.clock.strftime("%Y-%m-%dT%H:%M:%SZ"),
        opening=task.customer.opening,
        forms=forms,
        form_answers=for_brief(task.customer.forms) if forms == "client" else {},
    )
    brief._customer = customer
    return brief

"""The customer brief an agent gets for one trial: the JSON file named by AFTERSALES_TASK_FILE.

It holds what the customer says, knows and wants, and how they answer forms; never the expected outcome, the
call rules or the reference solution. brief.schema.json is generated from `Brief`.
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from aftersales.testing.customer import settled
from aftersales.testing.tasks import Customer, Task

FORMAT = "aftersales-task-brief/1"


class Brief(BaseModel):
    """One trial's brief."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["aftersales-task-brief/1"] = "aftersales-task-brief/1"
    task_id: str = Field(description="The task's id; stable across trials (a good prefix for idempotency keys).")
    title: str
    trial: int = Field(ge=1, description="Which trial of the task this is.")
    world_time: str = Field(description="The world's (frozen) time at the start, ISO 8601 UTC.")
    forms: Literal["world", "client"] = Field(
        description="world: the server answers its forms from customer.forms itself; client: the agent's MCP "
        "client must answer them (customer.forms says how the customer would)."
    )
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
        customer=settled(task.customer),  # no conversation to make their mistakes or change their mind in
        mention=task.mention,
    )

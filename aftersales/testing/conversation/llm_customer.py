"""The LLM customer (`--customer llm`): a language model plays the task's customer from customer_prompt.md.

The model (AFTERSALES_CUSTOMER_MODEL and the other settings of aftersales.testing.llm) answers each agent message
with a structured reply: what it says, the facts it gave, whether it ends the conversation and why. Temperature is 0
and the seed is passed where the provider takes one; every reply carries its usage (model, the prompt's version
hash, tokens, cost) into the trace. What the engine cannot leave to the model it does itself, as the scripted
customer does: the opening is the task's, `stops_after` ends the conversation, and a change of mind the model says
is handed to `on_change` so the world's form answers follow it. Whether the model kept to its prompt (no fact given
unasked, no ending before the agent answered) is judged from the timeline afterwards (misses.py).
"""

import asyncio
import hashlib
import json
from collections import Counter
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field

from aftersales.testing.conversation.model import Reply
from aftersales.testing.customer import following
from aftersales.testing.llm import ModelChoice, Spend, build, settings_for, usage_of
from aftersales.testing.tasks import DEFAULT_TURN_LIMIT, Customer

T = TypeVar("T")
TEMPLATE = resources.files("aftersales.testing.conversation").joinpath("customer_prompt.md").read_text("utf-8")
PROMPT_VERSION = hashlib.sha256(TEMPLATE.encode("utf-8")).hexdigest()[:12]
MAX_REPLY = 2000  # characters of one customer message


class CustomerTurn(BaseModel):
    """The model's reply as the customer (its output type)."""

    message: str = Field(max_length=MAX_REPLY, description="What the customer says, in one to three sentences.")
    revealed: list[str] = Field(default_factory=list, description="Names of the facts this message gives.")
    end: bool = Field(default=False, description="Whether the customer ends the conversation with this message.")
    reason: Literal["need_met", "refused_and_told", "nothing_left"] | None = Field(
        default=None, description="Why the customer ends the conversation, when it does."
    )


def prompt_for(customer: Customer) -> str:
    """The customer's instructions: the template with the customer's JSON (only what a conversation uses)."""
    shown = customer.model_dump(mode="json", exclude_defaults=True)
    return TEMPLATE.replace("{customer}", json.dumps(shown, indent=2, ensure_ascii=False, sort_keys=True))


def customer_in(instructions: str) -> Customer:
    """The customer a prompt was written for (for deterministic stand-ins of the model that play it by rules)."""
    return Customer.model_validate_json(instructions[instructions.rindex("The customer you are:\n") + 22 :])


class LlmCustomer:
    """A task's customer played by a language model."""

    name = "llm"

    def __init__(
        self,
        customer: Customer,
        turn_limit: int = DEFAULT_TURN_LIMIT,
        on_change: Callable[[Customer], None] | None = None,
        choice: ModelChoice | None = None,
    ) -> None:
        self._customer = customer
        self._choice = choice or ModelChoice.from_env("customer")
        build(self._choice)  # refuse a model that cannot be built now, not at the first reply
        self._turn_limit = turn_limit
        self._history: list[Any] = []  # the model's messages so far (pydantic-ai ModelMessage)
        self._prelude = ""  # the conversation so far as text, when this engine took over part-way (resume)
        self._replies = 0
        self._names = set(customer.facts())
        self._told: Counter[str] = Counter()  # times each changes_mind field was given
        self.spent = Spend()  # what this conversation's replies cost
        self.on_change = on_change

    def opening(self) -> str:
        """The task's opening message (the same in every trial)."""
        return self._customer.opening

    def reply(self, message: str) -> Reply:
        """The model's reply to the agent's message, with its usage; ended when `stops_after` is reached."""
        if self._customer.stops_after is not None and self._replies >= self._customer.stops_after:
            return Reply("", ended=True, reason="stopped_answering")
        self._replies += 1
        result = _run(lambda: self._ask(message))
        self._history = result.all_messages()
        turn: CustomerTurn = result.output
        usage = usage_of(result, self._choice.model, PROMPT_VERSION)
        self.spent.add(usage)
        revealed = tuple(name for name in dict.fromkeys(turn.revealed) if name in self._names)
        self._follow_changes(revealed)
        return Reply(
            turn.message.strip(), revealed, ended=turn.end, reason=turn.reason if turn.end else None, usage=usage
        )

    def resume(self, opening: str, exchanges: Sequence[tuple[str, Reply]]) -> None:
        """Take over a conversation part-way (a replay's fallback): the model is shown it once, and nothing is paid."""
        lines = [f"You: {opening}"]
        for said, reply in exchanges:
            lines += [f"Agent: {said}", f"You: {reply.text}"]
            self._follow_changes(reply.revealed)
        self._replies = len(exchanges)
        self._prelude = "The conversation so far:\n" + "\n".join(lines) + "\n\nThe agent now says:\n"

    async def _ask(self, message: str) -> Any:
        """One run of the model on the agent's message, with the conversation so far (a fresh model per reply, so
        no connection outlives the event loop it was made on)."""
        from pydantic_ai import Agent

        agent = Agent(
            build(self._choice),
            output_type=CustomerTurn,
            instructions=prompt_for(self._customer),
            model_settings=settings_for(self._choice),
        )
        prompt, self._prelude = self._prelude + message, ""
        return await agent.run(prompt, message_history=self._history or None)

    def _follow_changes(self, revealed: tuple[str, ...]) -> None:
        """The second time the customer gives a wants field they change their mind about, the change is made."""
        changes: dict[str, Any] = {str(name): value for name, value in self._customer.changes_mind.items()}
        for name in (fact.removeprefix("wants.") for fact in revealed):
            if name not in changes:
                continue
            self._told[name] += 1
            if self._told[name] == 2 and self.on_change is not None:
                self.on_change(following(self._customer, {name: changes[name]}))


def _run(step: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to its end from synchronous code, on a thread of its own when this one runs an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(step())
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(step())).result()

"""A tiny deterministic customer engine for the channel's tests, independent of the shipped scripted customer.

It reveals a fact of `knows` when the message names it (its key, underscores as spaces, or the key's first word:
"order" for order_id), stops when thanked, and misses anything else.
"""

from aftersales.testing.conversation.model import Reply
from aftersales.testing.tasks import Customer

THANKS = "thank"  # a message with this word ends the conversation, its need met


class FactCustomer:
    """Answers "what's your order id?" from knows; a message naming nothing it knows is a miss."""

    name = "facts"

    def __init__(self, customer: Customer, turn_limit: int = 12) -> None:
        self.customer, self.turn_limit = customer, turn_limit

    def opening(self) -> str:
        """The task's opening line."""
        return self.customer.opening

    def reply(self, message: str) -> Reply:
        """The facts the message names, or a miss."""
        said = message.casefold()
        if THANKS in said:
            return Reply("Thanks, bye.", ended=True, reason="need_met")
        named = [key for key in self.customer.knows if key.replace("_", " ") in said or key.split("_")[0] in said]
        if not named:
            return Reply("Sorry, I don't follow — what do you need from me?", miss=True)
        return Reply(
            " ".join(f"My {key.replace('_', ' ')} is {self.customer.knows[key]}." for key in named), tuple(named)
        )


class BrokenCustomer(FactCustomer):
    """An engine that fails on every reply: the harness's fault, never the agent's."""

    name = "broken"

    def reply(self, message: str) -> Reply:
        """Always fails."""
        raise RuntimeError("the engine broke")

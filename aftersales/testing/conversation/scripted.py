"""The scripted customer: plays a task's customer from its script, the same reply to the same message.

It opens with `customer.opening`. A message that asks for facts (reading.asked) is answered with exactly those
facts, in the order asked, from `knows`, `story`, `wants` and `forms`; a fact it does not have gets "I don't have
that to hand" (understood, so no miss). A message that asks nothing may meet or refuse its need, close the
conversation or be a neutral statement; anything else is a miss. The reply's text depends on the message alone,
except that the reply reaching the turn limit adds that the customer has to go, and ends the conversation.
"""

from dataclasses import replace

from aftersales.testing.conversation import reading, replies, vocabulary
from aftersales.testing.conversation.model import Reply
from aftersales.testing.customer import UNSCRIPTED, answer_for
from aftersales.testing.tasks import DEFAULT_TURN_LIMIT, Customer, Scalar

_CONFIRM_KEYS = {
    "open_ticket": "after_sales_create_ticket:confirm",
    "cancel_ticket": "after_sales_cancel_ticket:confirm",
}


class CustomerGone(RuntimeError):
    """The customer was spoken to after the conversation ended (the channel refuses that before it gets here)."""


class ScriptedCustomer:
    """A task's customer, played by rules: it answers only what it is asked and never volunteers a fact."""

    name = "scripted"

    def __init__(self, customer: Customer, turn_limit: int = DEFAULT_TURN_LIMIT) -> None:
        self._customer = customer
        self._turn_limit = turn_limit
        self._turns = 0
        self._ended = False

    def opening(self) -> str:
        """The customer's first message."""
        return self._customer.opening

    def reply(self, message: str) -> Reply:
        """The customer's answer to one agent message; the one that reaches the turn limit ends the conversation."""
        if self._ended:
            raise CustomerGone("the customer has already ended the conversation")
        self._turns += 1
        answer = self._answer(message)
        if not answer.ended and self._turns >= self._turn_limit:
            answer = replace(answer, text=f"{answer.text} {replies.TURN_LIMIT}", ended=True, reason="turn_limit")
        self._ended = answer.ended
        return answer

    def _answer(self, message: str) -> Reply:
        asked = reading.asked(message)
        if asked:
            given = [self._give(name) for name in asked]
            revealed = tuple(name for _, name in given if name is not None)
            return Reply(" ".join(text for text, _ in given), revealed=revealed)
        return self._hear(message)

    def _hear(self, message: str) -> Reply:
        """A message that asks nothing: the need met or refused, a closing, a neutral statement, or a miss."""
        said = [reading.normalise(sentence) for sentence in reading.sentences(message)]
        if self._need_met(message):
            return Reply(replies.MET, ended=True, reason="need_met")
        if any(reading.matches(norm, vocabulary.REFUSAL) for norm in said):
            if any(reading.matches(norm, (*vocabulary.REASON, *vocabulary.STATUS)) for norm in said):
                return Reply(replies.REFUSED, ended=True, reason="refused_and_told")
            return Reply(replies.WHY_NOT)
        whole = reading.normalise(message)
        if reading.matches(whole, vocabulary.ANYTHING_TO_ADD):
            return Reply(replies.NOTHING_TO_ADD)
        if reading.matches(whole, vocabulary.ANYTHING_ELSE):
            return Reply(replies.ALL_SAID, ended=True, reason="nothing_left")
        if reading.matches(whole, vocabulary.GOODBYE):
            return Reply(replies.GOODBYE, ended=True, reason="nothing_left")
        kind = reading.statement_kind(message)
        if kind is not None:
            return Reply(replies.STATEMENT[kind])
        return Reply(vocabulary.MISS_REPLY, miss=True)

    def _need_met(self, message: str) -> bool:
        """Whether a sentence meets the need: a new ticket's number, "cancelled", or a stage (see vocabulary)."""
        action = self._customer.wants.action
        for sentence in reading.sentences(message):
            norm = reading.normalise(sentence)
            if action == "open_ticket":
                about_another = reading.matches(norm, (*vocabulary.REFUSAL, *vocabulary.OTHER_TICKET))
                met = bool(vocabulary.TICKET_NUMBER.search(sentence)) and not about_another
            elif action == "cancel_ticket":
                hedged = (*vocabulary.NEGATION, *vocabulary.CONDITIONAL)
                met = reading.matches(norm, vocabulary.CANCELLED) and not reading.matches(norm, hedged)
            else:
                met = reading.matches(norm, vocabulary.STATUS)
            if met:
                return True
        return False

    def _give(self, name: str) -> tuple[str, str | None]:
        """The sentence answering one asked fact, and the fact it reveals (None when it reveals nothing)."""
        customer, wants = self._customer, self._customer.wants
        if name == "product" and "product" not in customer.knows and "line_no" in customer.knows:
            name = "line_no"  # "which item?" from a customer who knows only where it is on the order
        if name == "story" or (name == "wants.description" and wants.description is None):
            return customer.story, "story"
        if name == "wants.reason_code" and wants.reason_code is None:
            return customer.story, "story"
        if name == "wants.kind" and wants.kind is None:
            return replies.fact("wants.action", wants.action), "wants.action"
        if name == "wants.accepts_repair":
            return replies.fact(name, wants.accepts_repair or wants.kind == "repair"), name
        if name == "wants.refund_method":
            return self._refund_method()
        if name == "confirm":
            return self._confirm(), name
        if name.startswith("wants."):
            return replies.fact(name, getattr(wants, name.removeprefix("wants."))), name
        value: Scalar = customer.knows.get(name)
        if value is None:
            return replies.unknown(name), None
        return replies.fact(name, value), name

    def _refund_method(self) -> tuple[str, str | None]:
        """The refund method they named up front, else the one their form answer gives."""
        method: Scalar = self._customer.wants.refund_method
        if method is None:
            form = answer_for(self._customer, None, {"refund_method"})
            content = form.content or {}
            if form.action != "accept" or not content.get("refund_method"):
                why = None if form is UNSCRIPTED or form.action == "accept" else form.action
                return replies.NO_METHOD[why], None
            method = content["refund_method"]
        return replies.fact("wants.refund_method", method), "wants.refund_method"

    def _confirm(self) -> str:
        """Yes or no as their confirmation form says; a confirmation the script does not foresee is a yes."""
        key = _CONFIRM_KEYS.get(self._customer.wants.action)
        form = (
            self._customer.forms[key] if key in self._customer.forms else answer_for(self._customer, None, {"confirm"})
        )
        if form is UNSCRIPTED:
            return replies.CONFIRM["yes"]  # they asked for this, so they agree to it
        if form.action == "cancel":
            return replies.CONFIRM["unsure"]
        agreed = form.action == "accept" and (form.content or {}).get("confirm", True) is not False
        return replies.CONFIRM["yes" if agreed else "no"]

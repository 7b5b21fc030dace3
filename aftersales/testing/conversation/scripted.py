"""The scripted customer: plays a task's customer from its script, the same reply to the same message.

It opens with `customer.opening`. A message that asks for facts (reading.asked) is answered with exactly those
facts, in the order asked, from `knows`, `story`, `wants` and `forms`; a fact it does not have gets "I don't have
that to hand" (understood, so no miss). A message that asks nothing may meet or refuse its need, close the
conversation or be a neutral statement; anything else is a miss. The reply's text depends on the message alone,
except that the reply reaching the turn limit adds that the customer has to go, and ends the conversation, and
except for the customer's scripted behaviours, which depend on what was said before (so the same conversation
always gets the same replies):

- `mistakes`: the first time a fact is asked for, the wrong value; asked again, or told it was not found or does
  not match (hearing.NOT_FOUND), "Sorry, I got that wrong." and the right one. Both reveal the fact.
- `changes_mind`: the first time a wants field is asked for, the script's value; the next time it is asked, or at a
  confirmation after it was asked, "Actually, I've changed my mind." and the new value, theirs from then on. The
  engine then hands the changed customer (customer.following) to `on_change`, so the world's form answers follow.
- `stops_after`: after that many replies, an empty one that ends the conversation (reason stopped_answering).
"""

from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from aftersales.testing.conversation import hearing, reading, replies, vocabulary
from aftersales.testing.conversation.model import Reply
from aftersales.testing.customer import UNSCRIPTED, answer_for, following
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

    def __init__(
        self,
        customer: Customer,
        turn_limit: int = DEFAULT_TURN_LIMIT,
        on_change: Callable[[Customer], None] | None = None,
    ) -> None:
        self._script = customer
        self._customer = customer  # as they are now: the script, with every change of mind made so far
        self._turn_limit = turn_limit
        self._turns = 0
        self._ended = False
        self._changes: dict[str, Scalar] = {str(field): value for field, value in customer.changes_mind.items()}
        self._asks: Counter[str] = Counter()  # times each changes_mind field was asked for
        self._wrong: list[str] = []  # facts given wrong and not yet put right, in the order given
        self._said: set[str] = set()  # mistaken facts and changed fields already said once
        # Told the changed customer when they change their mind: the runner answers the world's forms with it.
        self.on_change = on_change

    @property
    def customer(self) -> Customer:
        """The customer as they are now: their script, with every change of mind made so far."""
        return self._customer

    def opening(self) -> str:
        """The customer's first message."""
        return self._customer.opening

    def reply(self, message: str) -> Reply:
        """The customer's answer to one agent message; the one that reaches the turn limit ends the conversation."""
        if self._ended:
            raise CustomerGone("the customer has already ended the conversation")
        self._turns += 1
        stops = self._script.stops_after
        if stops is not None and self._turns > stops:
            self._ended = True
            return Reply("", ended=True, reason="stopped_answering")
        answer = self._answer(message)
        if not answer.ended and self._turns >= self._turn_limit:
            answer = replace(answer, text=f"{answer.text} {replies.TURN_LIMIT}", ended=True, reason="turn_limit")
        self._ended = answer.ended
        return answer

    def _answer(self, message: str) -> Reply:
        asked = reading.asked(message)
        given = [self._put_right(name) for name in self._told_wrong(message, asked)]
        given += [self._give(name) for name in asked]
        if given:
            revealed = tuple(name for _, names in given for name in names)
            return Reply(" ".join(text for text, _ in given), revealed=revealed)
        return self._hear(message)

    def _told_wrong(self, message: str, asked: list[str]) -> list[str]:
        """The facts still wrong that the message says were not found or do not match (all of them, unnamed)."""
        pending = [name for name in self._wrong if name not in asked]
        said = [reading.normalise(sentence) for sentence in reading.sentences(message)]
        if not pending or not any(reading.matches(norm, hearing.NOT_FOUND) for norm in said):
            return []
        named = [name for name in pending if any(reading.matches(n, hearing.TOPICS.get(name, ())) for n in said)]
        return named or pending

    def _hear(self, message: str) -> Reply:
        """A message that asks nothing: the need met or refused, a closing, a neutral statement, or a miss."""
        said = [reading.normalise(sentence) for sentence in reading.sentences(message)]
        if self._need_met(message):
            return Reply(replies.MET, ended=True, reason="need_met")
        if any(reading.matches(norm, hearing.REFUSAL) for norm in said):
            if any(reading.matches(norm, (*hearing.REASON, *hearing.STATUS)) for norm in said):
                return Reply(replies.REFUSED, ended=True, reason="refused_and_told")
            return Reply(replies.WHY_NOT)
        whole = reading.normalise(message)
        if reading.matches(whole, hearing.ANYTHING_TO_ADD):
            return Reply(replies.NOTHING_TO_ADD)
        if reading.matches(whole, hearing.ANYTHING_ELSE):
            return Reply(replies.ALL_SAID, ended=True, reason="nothing_left")
        if reading.matches(whole, hearing.GOODBYE):
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
                about_another = reading.matches(norm, (*hearing.REFUSAL, *hearing.OTHER_TICKET))
                met = bool(vocabulary.TICKET_NUMBER.search(sentence)) and not about_another
            elif action == "cancel_ticket":
                hedged = (*hearing.NEGATION, *hearing.CONDITIONAL)
                met = reading.matches(norm, hearing.CANCELLED) and not reading.matches(norm, hedged)
            else:
                met = reading.matches(norm, hearing.STATUS)
            if met:
                return True
        return False

    def _give(self, name: str) -> tuple[str, tuple[str, ...]]:
        """The sentence answering one asked fact, and the facts it reveals; a scripted behaviour first, if any."""
        knows = self._customer.knows
        if name == "product" and "product" not in knows and "line_no" in knows:
            name = "line_no"  # "which item?" from a customer who knows only where it is on the order
        if name in self._script.mistakes:
            return self._mistaken(name)
        field = name.removeprefix("wants.")
        if name.startswith("wants.") and field in self._changes:
            self._asks[field] += 1
            if self._asks[field] > 1 and field not in self._said:
                return self._change_mind([field])
        if name == "confirm":
            turned = [field for field in self._changes if self._asks[field] and field not in self._said]
            if turned:  # asked to confirm what they were asked before: they say what they want now instead
                return self._change_mind(turned)
        text, revealed = self._lookup(name)
        return text, (revealed,) if revealed else ()

    def _mistaken(self, name: str) -> tuple[str, tuple[str, ...]]:
        """A fact they get wrong: the wrong value the first time, the right one after."""
        if name not in self._said:
            self._said.add(name)
            self._wrong.append(name)
            return replies.fact(name, self._script.mistakes[name]), (name,)
        if name in self._wrong:
            return self._put_right(name)
        return self._lookup(name)[0], (name,)

    def _put_right(self, name: str) -> tuple[str, tuple[str, ...]]:
        """The right value of a fact they gave wrong, with an apology."""
        self._wrong.remove(name)
        return f"{replies.CORRECTED} {self._lookup(name)[0]}", (name,)

    def _change_mind(self, fields: list[str]) -> tuple[str, tuple[str, ...]]:
        """They want something else from now on: say so, and tell whoever answers the world's forms for them."""
        self._said.update(fields)
        self._customer = following(self._customer, {field: self._changes[field] for field in fields})
        if self.on_change is not None:
            self.on_change(self._customer)
        given = [self._lookup(f"wants.{field}") for field in fields]
        text = " ".join([replies.CHANGED_MIND, *(sentence for sentence, _ in given)])
        return text, tuple(name for _, name in given if name is not None)

    def _lookup(self, name: str) -> tuple[str, str | None]:
        """The sentence giving one fact as they are now, and the fact it reveals (None when it reveals nothing)."""
        customer, wants = self._customer, self._customer.wants
        if name == "story" or (name == "wants.description" and wants.description is None):
            return customer.story, "story"
        if name == "wants.reason_code" and wants.reason_code is None:
            return customer.story, "story"
        if name == "wants.kind" and wants.kind is None:
            return replies.fact("wants.action", wants.action), "wants.action"
        if name == "wants.accepts_repair":
            changed = "accepts_repair" in self._said  # a change of mind outweighs what a repair ticket implies
            return replies.fact(name, wants.accepts_repair or (wants.kind == "repair" and not changed)), name
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

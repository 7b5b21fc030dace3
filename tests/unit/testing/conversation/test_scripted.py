"""The scripted customer: answers only what it is asked, from the task's customer, the same way every time;
and the question corpus (seed/conversation/questions.yaml) it must understand, each entry against an all-knowing
customer.
"""

from typing import Literal

import pytest
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from aftersales.testing.conversation import vocabulary
from aftersales.testing.conversation.model import CustomerEngine, EndReason
from aftersales.testing.conversation.scripted import CustomerGone, ScriptedCustomer
from aftersales.testing.conversation.vocabulary import MISS_REPLY
from aftersales.testing.customer import answer_question
from aftersales.testing.loader import load, load_file, shipped_tasks
from aftersales.testing.tasks import Customer

TSHIRTS = load_file(shipped_tasks() / "quote-expired-clock-moved.yaml").customer  # knows six facts, store credit
CANCEL = load_file(shipped_tasks() / "cancel-ticket-declined.yaml").customer
CHECK = load_file(shipped_tasks() / "status-under-review.yaml").customer
NOT_ASKING = [
    "Hello, thanks for contacting us.",
    "Let me check that for you.",
    "One moment please.",
    "I've found your order.",
    "I'm sorry to hear that.",
    "I'll open the return now.",
]


def with_forms(customer: Customer, forms: dict[str, object]) -> Customer:
    """The customer with another forms script."""
    return with_script(customer, forms=forms)


def with_script(customer: Customer, **changes: object) -> Customer:
    """The customer with some of its script replaced (validated, as a task file would be)."""
    return Customer.model_validate(customer.model_dump(by_alias=True) | changes)


WRONG_ORDER = with_script(TSHIRTS, mistakes={"order_id": "O-2026-001401"})
FICKLE = with_script(TSHIRTS, changes_mind={"refund_method": "original_payment"})  # the form says store credit
METHOD_FORM = {
    "key": "after_sales_create_ticket:refund_method",
    "requested_schema": {"properties": {"refund_method": {}}},
}


def test_it_opens_with_the_tasks_opening_message():
    assert ScriptedCustomer(TSHIRTS).opening() == TSHIRTS.opening


def test_it_is_a_customer_engine_named_scripted():
    engine: CustomerEngine = ScriptedCustomer(TSHIRTS)
    assert engine.name == "scripted"


def test_it_reveals_only_the_fact_it_is_asked_for():
    reply = ScriptedCustomer(TSHIRTS).reply("Could you share the order ID?")
    assert reply.text == "My order number is O-2026-001410."
    assert reply.revealed == ("order_id",) and not reply.miss and not reply.ended
    others = [str(value) for name, value in TSHIRTS.knows.items() if name not in ("order_id", "line_no")]
    assert not [value for value in others if value in reply.text]


def test_it_gives_several_facts_asked_in_one_message_in_the_order_asked():
    reply = ScriptedCustomer(TSHIRTS).reply("What's the email on your account, and which order is this about?")
    assert reply.revealed == ("email", "order_id")
    assert reply.text == "My email is jie.sun.3@example.com. My order number is O-2026-001410."


@pytest.mark.parametrize("message", NOT_ASKING)
def test_it_never_volunteers_a_fact_it_was_not_asked_for(message):
    reply = ScriptedCustomer(TSHIRTS).reply(message)
    assert reply.revealed == () and not reply.miss and not reply.ended
    assert not [value for value in map(str, TSHIRTS.knows.values()) if value in reply.text]
    assert TSHIRTS.story not in reply.text


def test_the_same_message_always_gets_the_same_reply():
    first, second = ScriptedCustomer(TSHIRTS), ScriptedCustomer(TSHIRTS)
    messages = ["Which item is it?", "Let me check.", "Original card or store credit?", "Which item is it?"]
    assert [first.reply(m) for m in messages] == [second.reply(m) for m in messages]
    assert first.reply("Which item is it?") == second.reply("Which item is it?")


def test_a_message_it_cannot_map_is_a_miss_with_the_fixed_reply():
    reply = ScriptedCustomer(TSHIRTS).reply("Purple elephants dance at noon.")
    assert reply.miss and reply.text == MISS_REPLY == "Sorry, I don't follow — what do you need from me?"
    assert reply.revealed == () and not reply.ended


def test_order_in_in_order_to_is_not_a_question_about_the_order():
    assert ScriptedCustomer(TSHIRTS).reply("In order to help, we align things.").miss


def test_a_fact_it_does_not_know_is_understood_but_reveals_nothing():
    reply = ScriptedCustomer(TSHIRTS).reply("What's your phone number?")
    assert reply.text == "I'm afraid I don't have a phone number to hand."
    assert reply.revealed == () and not reply.miss


def test_a_sentence_that_tells_a_value_does_not_ask_for_it():
    reply = ScriptedCustomer(TSHIRTS).reply("Your order number is O-2026-001410.")
    assert reply.revealed == () and not reply.miss


def test_which_item_gets_the_product_or_the_line_when_it_knows_no_product_name():
    assert ScriptedCustomer(TSHIRTS).reply("Which item is it?").text == "It's the Cotton T-Shirt 3-Pack."
    no_name = TSHIRTS.model_copy(update={"knows": {"order_id": "O-2026-001410", "line_no": 2}})
    reply = ScriptedCustomer(no_name).reply("Which item is it?")
    assert reply.text == "It's the second item on the order." and reply.revealed == ("line_no",)


def test_it_states_what_it_wants_when_asked():
    customer = ScriptedCustomer(TSHIRTS)
    assert customer.reply("How can I help?").text == "I'd like to send it back for a refund."
    assert customer.reply("Why are you returning it?").text == "I just don't need it any more."
    assert customer.reply("How many?").text == "Just one."
    assert customer.reply("Would a repair do?").text == "No, I don't want a repair."
    assert ScriptedCustomer(CANCEL).reply("What can I do for you?").revealed == ("wants.action",)


def test_it_names_the_refund_method_its_form_answer_gives():
    reply = ScriptedCustomer(TSHIRTS).reply("Original card or store credit?")
    assert reply.text == "Store credit, please." and reply.revealed == ("wants.refund_method",)


def test_a_refund_method_form_it_declines_gets_no_method():
    declined = with_forms(TSHIRTS, {"after_sales_create_ticket:refund_method": {"action": "decline"}})
    reply = ScriptedCustomer(declined).reply("How would you like your refund?")
    assert reply.revealed == () and not reply.miss


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ({"action": "accept", "content": {"confirm": True}}, "Yes, please go ahead."),
        ({"action": "accept", "content": {"confirm": False}}, "No, please don't."),
        ({"action": "decline"}, "No, please don't."),
        ({"action": "cancel"}, "I'd rather not decide now, so no."),
    ],
)
def test_it_answers_a_confirmation_as_its_forms_script_says(answer, said):
    customer = with_forms(TSHIRTS, {"after_sales_create_ticket:confirm": answer})
    reply = ScriptedCustomer(customer).reply("Shall I go ahead and open the return?")
    assert reply.text == said and reply.revealed == ("confirm",)


def test_a_confirmation_its_script_does_not_foresee_is_a_yes():
    customer = with_forms(TSHIRTS, {})
    assert ScriptedCustomer(customer).reply("Do you want me to create the ticket?").text == "Yes, please go ahead."


def test_a_cancel_customer_confirms_with_its_cancel_form():
    assert ScriptedCustomer(CANCEL).reply("Shall I cancel ticket T-2026-0297?").text == "No, please don't."


@pytest.mark.parametrize(
    ("customer", "message"),
    [
        (TSHIRTS, "Done: your return ticket is T-2026-0412."),
        (CANCEL, "Your ticket has been cancelled."),
        (CHECK, "Your ticket T-2026-0297 is under review."),
    ],
)
def test_it_ends_the_conversation_when_its_need_is_met(customer, message):
    reply = ScriptedCustomer(customer).reply(message)
    assert (reply.ended, reply.reason, reply.revealed) == (True, "need_met", ())


def test_a_ticket_number_in_a_refusal_does_not_meet_an_open_ticket_need():
    reply = ScriptedCustomer(TSHIRTS).reply("There's already an open ticket T-2026-0297 on it, so I can't open one.")
    assert reply.reason == "refused_and_told"


def test_a_refusal_with_a_reason_ends_it_and_one_without_a_reason_asks_why():
    told = ScriptedCustomer(TSHIRTS).reply("I'm afraid I can't, because the return window has passed.")
    assert (told.ended, told.reason) == (True, "refused_and_told")
    bare = ScriptedCustomer(TSHIRTS).reply("I'm afraid I can't do that.")
    assert (bare.ended, bare.miss, bare.text) == (False, False, "Oh. Can you tell me why not?")


def test_a_question_in_a_refusal_is_answered_and_the_conversation_goes_on():
    reply = ScriptedCustomer(TSHIRTS).reply("I can't find an order under that email. What's your order number?")
    assert reply.revealed == ("order_id",) and not reply.ended


@pytest.mark.parametrize("message", ["Is there anything else I can help you with?", "Goodbye, have a nice day!"])
def test_it_ends_with_nothing_left_on_anything_else_or_goodbye(message):
    reply = ScriptedCustomer(TSHIRTS).reply(message)
    assert (reply.ended, reply.reason) == (True, "nothing_left")


def test_the_reply_that_reaches_the_turn_limit_ends_the_conversation():
    customer = ScriptedCustomer(TSHIRTS, turn_limit=3)
    first, second, third = (customer.reply("Let me check.") for _ in range(3))
    assert not first.ended and first == second
    assert (third.ended, third.reason, third.text) == (True, "turn_limit", "Sure, I'll wait. Sorry, I have to go now.")


def test_the_default_turn_limit_is_twelve():
    customer = ScriptedCustomer(TSHIRTS)
    replies = [customer.reply("One moment please.") for _ in range(12)]
    assert [reply.ended for reply in replies] == [False] * 11 + [True]


def test_a_message_after_the_end_is_refused():
    customer = ScriptedCustomer(TSHIRTS)
    customer.reply("Goodbye!")
    with pytest.raises(CustomerGone):
        customer.reply("What's your order number?")


@pytest.mark.parametrize("task", load(), ids=lambda task: task.id)
def test_it_plays_every_shipped_tasks_customer(task):
    customer = ScriptedCustomer(task.customer)
    assert customer.opening() == task.customer.opening
    for message in ["What can I do for you?", "What happened?", "Why?", "How many?", "Shall I go ahead?"]:
        reply = customer.reply(message)
        assert not reply.miss, message
        if reply.ended:  # only a customer who stops answering (stops_after) goes before the last question
            assert reply.reason == "stopped_answering", message
            break


def test_a_customer_with_a_mistake_gives_the_wrong_value_first_and_the_right_one_when_asked_again():
    customer = ScriptedCustomer(WRONG_ORDER)
    first, second, third = (customer.reply("What's your order number?") for _ in range(3))
    assert (first.text, first.revealed) == ("My order number is O-2026-001401.", ("order_id",))
    assert (second.text, second.revealed) == (
        "Sorry, I got that wrong. My order number is O-2026-001410.",
        ("order_id",),
    )
    assert third.text == "My order number is O-2026-001410."


def test_a_customer_told_i_cannot_find_that_order_gives_the_right_order_number():
    customer = ScriptedCustomer(WRONG_ORDER)
    customer.reply("Which order is this about?")
    reply = customer.reply("I can't find that order.")
    assert reply.text == "Sorry, I got that wrong. My order number is O-2026-001410."
    assert (reply.revealed, reply.ended, reply.miss) == (("order_id",), False, False)


def test_told_a_fact_does_not_match_the_customer_puts_right_only_the_fact_named():
    both = with_script(TSHIRTS, mistakes={"order_id": "O-2026-001401", "email": "jie.sun@example.com"})
    customer = ScriptedCustomer(both)
    assert customer.reply("Your email and order number, please?").revealed == ("email", "order_id")
    reply = customer.reply("That email doesn't match our records.")
    assert reply.text == "Sorry, I got that wrong. My email is jie.sun.3@example.com."
    assert customer.reply("Which order?").text == "Sorry, I got that wrong. My order number is O-2026-001410."


def test_a_not_found_without_a_mistake_is_still_a_refusal_with_a_reason():
    reply = ScriptedCustomer(TSHIRTS).reply("I can't find that order.")
    assert (reply.ended, reply.reason) == (True, "refused_and_told")


def test_a_customer_changes_mind_on_the_second_ask_and_the_world_form_answer_follows():
    told: list[Customer] = []
    customer = ScriptedCustomer(FICKLE, on_change=told.append)
    first = customer.reply("Original card or store credit?")
    assert (first.text, told) == ("Store credit, please.", [])
    assert answer_question(customer.customer, METHOD_FORM)["content"] == {"refund_method": "store_credit"}
    second = customer.reply("How would you like your refund?")
    assert second.text == "Actually, I've changed my mind. Back to my original payment method, please."
    assert second.revealed == ("wants.refund_method",)
    assert told == [customer.customer] and told[0].wants.refund_method == "original_payment"
    assert answer_question(told[0], METHOD_FORM)["content"] == {"refund_method": "original_payment"}
    third = customer.reply("Store credit or original card?")
    assert (third.text, len(told)) == ("Back to my original payment method, please.", 1)


def test_asked_to_confirm_after_the_first_ask_the_customer_says_what_it_wants_now_instead_of_yes():
    customer = ScriptedCustomer(FICKLE)
    customer.reply("Original card or store credit?")
    reply = customer.reply("I'll open the return now. Shall I go ahead?")
    assert reply.text == "Actually, I've changed my mind. Back to my original payment method, please."
    assert reply.revealed == ("wants.refund_method",)
    assert customer.reply("Shall I go ahead?").text == "Yes, please go ahead."


def test_a_world_confirmation_naming_the_method_the_customer_gave_up_is_declined():
    customer = ScriptedCustomer(
        with_script(
            FICKLE,
            forms=FICKLE.forms
            | {"after_sales_create_ticket:confirm": {"action": "accept", "content": {"confirm": True}}},
        )
    )
    confirm = (
        "Open a refund ticket for 1 x Cotton T-Shirt 3-Pack, refunding ¥129.00 {}? Please confirm with the customer."
    )
    question = {"key": "after_sales_create_ticket:confirm", "message": confirm.format("as store credit")}
    assert answer_question(customer.customer, question)["action"] == "accept"  # store credit is what they want now
    customer.reply("Original card or store credit?")
    customer.reply("Original card or store credit?")
    assert answer_question(customer.customer, question)["action"] == "decline"
    chosen = question | {"message": confirm.format("to the original payment method")}
    assert answer_question(customer.customer, chosen) == {"action": "accept", "content": {"confirm": True}}


def test_a_customer_stops_answering_after_n_agent_messages():
    customer = ScriptedCustomer(with_script(TSHIRTS, stops_after=2))
    assert customer.reply("What's your order number?").text == "My order number is O-2026-001410."
    assert not customer.reply("Let me check.").ended
    stopped = customer.reply("Which item is it?")
    assert (stopped.text, stopped.revealed, stopped.ended, stopped.reason) == ("", (), True, "stopped_answering")
    with pytest.raises(CustomerGone):
        customer.reply("Are you still there?")


def test_a_customer_that_stops_after_none_answers_nothing():
    stopped = ScriptedCustomer(with_script(TSHIRTS, stops_after=0)).reply("How can I help?")
    assert (stopped.text, stopped.ended, stopped.reason) == ("", True, "stopped_answering")


def test_the_same_conversation_gets_the_same_replies_with_every_behaviour():
    script = with_script(
        TSHIRTS,
        mistakes={"order_id": "O-2026-001401"},
        changes_mind={"refund_method": "original_payment"},
        stops_after=5,
    )
    messages = [
        "Which order?",
        "I can't find that order.",
        "Store credit or card?",
        "Store credit or card?",
        "Which order?",
        "Bye!",
    ]
    first, second = ScriptedCustomer(script), ScriptedCustomer(script)
    assert [first.reply(m) for m in messages] == [second.reply(m) for m in messages]


@pytest.mark.parametrize(
    ("changes", "wrong"),
    [
        ({"mistakes": {"phone": "555-0100"}}, "mistakes names 'phone', which is not in knows"),
        ({"mistakes": {"order_id": "O-2026-001410"}}, "a mistake must differ from knows"),
        ({"changes_mind": {"refund_method": "store_credit"}}, "the value it already has ('store_credit')"),
        ({"changes_mind": {"refund_method": "cash"}}, "which wants.refund_method cannot take"),
        ({"changes_mind": {"refund_method": "original_payment"}, "forms": {}}, "has no value for"),
        ({"changes_mind": {"action": "cancel_ticket"}}, "changes_mind.action"),
        ({"stops_after": -1}, "stops_after"),
    ],
)
def test_a_mistake_or_change_of_mind_must_name_a_fact_or_want_the_customer_has_and_another_value(changes, wrong):
    with pytest.raises(ValidationError) as refused:
        with_script(TSHIRTS, **changes)
    assert wrong in str(refused.value)


def test_a_change_of_mind_about_a_want_without_a_form_is_valid():
    assert with_script(TSHIRTS, changes_mind={"kind": "repair"}, forms={}).changes_mind == {"kind": "repair"}


def test_a_fact_asked_twice_in_one_sentence_is_given_once():
    reply = ScriptedCustomer(TSHIRTS).reply("What's your order number, and which item on the order is it about?")
    assert reply.revealed == ("order_id", "product")
    assert reply.text == "My order number is O-2026-001410. It's the Cotton T-Shirt 3-Pack."


def test_a_refused_cancellation_that_says_when_a_ticket_can_be_cancelled_does_not_meet_the_need():
    refusal = (
        "I'm sorry, but I can't cancel ticket T-2026-0335: it is in the repair stage. "
        "A ticket can be cancelled only in the review or awaiting_return stage."
    )
    assert ScriptedCustomer(CANCEL).reply(refusal).reason == "refused_and_told"


def test_an_item_excluded_from_returns_is_a_refusal_told_with_its_reason():
    refusal = "I'm sorry, but the essence cannot be returned. Items of this kind are excluded from returns for hygiene."
    assert ScriptedCustomer(TSHIRTS).reply(refusal).reason == "refused_and_told"


CORPUS = shipped_tasks().parent / "conversation" / "questions.yaml"
FACT_NAMES = set(vocabulary.FACTS) | {"wants.action"}
Action = Literal["open_ticket", "cancel_ticket", "check_ticket"]


class Entry(BaseModel):
    """One agent message and what the customer's reply must come to."""

    model_config = ConfigDict(extra="forbid")

    say: str = Field(min_length=1)
    reveals: list[str] = Field(default_factory=list)
    miss: bool = False
    ends: EndReason | None = None
    action: Action = "open_ticket"

    @model_validator(mode="after")
    def _consistent(self) -> "Entry":
        unknown = set(self.reveals) - FACT_NAMES
        if unknown:
            raise ValueError(f"unknown fact names {sorted(unknown)}")
        if self.miss and (self.reveals or self.ends):
            raise ValueError("a miss reveals nothing and ends nothing")
        return self


class Corpus(BaseModel):
    """The corpus file."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["aftersales-question-corpus/1"]
    questions: list[Entry] = Field(min_length=300)


def corpus() -> Corpus:
    """The shipped corpus, validated."""
    return Corpus.model_validate(yaml.safe_load(CORPUS.read_text(encoding="utf-8")))


def all_knowing(action: Action) -> Customer:
    """A real task's customer (three faulty FreeBuds) who also knows a phone, a ticket and the dates."""
    customer = load_file(shipped_tasks() / "refund-headphones-all-three-review.yaml").customer
    knows = customer.knows | {
        "phone": "+86 138 0000 0002",
        "ticket_id": "T-2026-0325",
        "delivered_on": "26 November",
        "ordered_on": "21 November",
    }
    wants = (
        customer.wants
        if action == "open_ticket"
        else customer.wants.model_copy(update={"action": action, "kind": None})
    )
    return customer.model_copy(update={"knows": knows, "wants": wants})


def test_the_corpus_has_at_least_300_distinct_messages_of_a_known_shape():
    questions = corpus().questions
    messages = [entry.say.strip().lower() for entry in questions]
    assert len(set(messages)) == len(messages), [m for m in set(messages) if messages.count(m) > 1]
    assert len(questions) >= 300


def test_the_corpus_asks_for_every_fact_the_customer_can_reveal():
    asked = {name for entry in corpus().questions for name in entry.reveals}
    assert FACT_NAMES - asked == set()


def test_a_corpus_entry_that_is_both_a_miss_and_a_reveal_is_refused():
    with pytest.raises(ValueError, match="a miss reveals nothing"):
        Entry.model_validate({"say": "x", "miss": True, "reveals": ["email"]})
    with pytest.raises(ValueError, match="unknown fact names"):
        Entry.model_validate({"say": "x", "reveals": ["favourite_colour"]})


def test_every_corpus_message_gets_the_reply_it_should():
    mismatches = []
    for entry in corpus().questions:
        reply = ScriptedCustomer(all_knowing(entry.action)).reply(entry.say)
        got = (sorted(reply.revealed), reply.miss, reply.reason if reply.ended else None)
        wanted = (sorted(entry.reveals), entry.miss, entry.ends)
        if got != wanted:
            mismatches.append(f"{entry.say!r}: wanted {wanted}, got {got} ({reply.text!r})")
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches)

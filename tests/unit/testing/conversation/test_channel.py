"""A conversation trial's channel: what it accepts, what it refuses (recording nothing), its turn limit, its lock."""

import sys
from typing import Any

import pytest

from aftersales.testing.conversation.channel import MAX_MESSAGE, ChannelError, Conversation
from aftersales.testing.conversation.model import Reply
from aftersales.testing.tasks import Customer
from tests.support.customers import BrokenCustomer, FactCustomer
from tests.support.threads import run_concurrently

CUSTOMER = Customer.model_validate(
    {
        "opening": "My t-shirts are not what I expected.",
        "knows": {"order_id": "O-2026-001410", "email": "mia@example.com"},
        "story": "They are too small.",
        "wants": {"action": "open_ticket"},
    }
)


class Recorder:
    """Turns as the world's trace would number them."""

    def __init__(self) -> None:
        self.turns: list[dict[str, Any]] = []

    def __call__(self, speaker: str, text: str, **facts: Any) -> dict[str, Any]:
        self.turns.append({"speaker": speaker, "text": text, **facts, "seq": len(self.turns) + 1})
        return self.turns[-1]


class Echo:
    """Replies with the message it heard, so a reply can be matched to its question; counts callers inside at once."""

    name = "echo"

    def __init__(self) -> None:
        self.inside = self.most_inside = 0

    def opening(self) -> str:
        return "Hello"

    def reply(self, message: str) -> Reply:
        self.inside += 1
        self.most_inside = max(self.most_inside, self.inside)
        sum(range(20_000))  # some work, so that an unguarded second caller would get in meanwhile
        self.inside -= 1
        return Reply(f"you said {message}")


def opened(turn_limit: int = 12) -> tuple[Conversation, Recorder]:
    recorder = Recorder()
    conversation = Conversation(FactCustomer(CUSTOMER), turn_limit, recorder)
    conversation.open()
    return conversation, recorder


def test_the_opening_and_each_exchange_are_recorded_in_order_with_what_the_customer_revealed():
    conversation, recorder = opened()
    said = conversation.say("  Which order is this about?  ")
    assert (said.reply.text, said.turn, said.turns_left) == ("My order id is O-2026-001410.", 1, 11)
    assert [(turn["speaker"], turn["text"]) for turn in recorder.turns] == [
        ("customer", "My t-shirts are not what I expected."),
        ("agent", "Which order is this about?"),  # as the customer heard it: stripped
        ("customer", "My order id is O-2026-001410."),
    ]
    assert recorder.turns[2] | {"seq": 0} == {
        "speaker": "customer",
        "text": "My order id is O-2026-001410.",
        "engine": "facts",
        "revealed": ("order_id",),
        "miss": False,
        "ended": False,
        "reason": None,
        "seq": 0,
    }
    assert recorder.turns[1] == {"speaker": "agent", "text": "Which order is this about?", "engine": "facts", "seq": 2}


def test_a_message_the_customer_cannot_map_is_recorded_as_a_miss():
    conversation, recorder = opened()
    conversation.say("Lovely weather, isn't it?")
    assert recorder.turns[-1]["miss"] and recorder.turns[-1]["revealed"] == ()


@pytest.mark.parametrize(
    ("text", "status", "code"),
    [("", 400, "empty_message"), (" \n\t ", 400, "empty_message"), ("x" * (MAX_MESSAGE + 1), 413, "message_too_long")],
)
def test_an_empty_or_too_long_message_is_refused_with_three_parts_and_records_nothing(text, status, code):
    conversation, recorder = opened()
    with pytest.raises(ChannelError) as refused:
        conversation.say(text)
    assert (refused.value.status, refused.value.code) == (status, code)
    assert refused.value.what and refused.value.rule and refused.value.todo
    assert len(recorder.turns) == 1 and conversation.turns == 0


def test_a_message_of_exactly_the_longest_length_is_taken():
    conversation, _ = opened()
    assert conversation.say("order " + "x" * (MAX_MESSAGE - 6)).turn == 1


def test_the_reply_that_reaches_the_turn_limit_ends_the_conversation_and_later_messages_are_refused():
    conversation, recorder = opened(turn_limit=2)
    assert not conversation.say("your email?").reply.ended
    last = conversation.say("and the order?")
    assert (last.reply.ended, last.reply.reason, last.turns_left) == (True, "turn_limit", 0)
    assert recorder.turns[-1]["ended"] and recorder.turns[-1]["reason"] == "turn_limit"
    with pytest.raises(ChannelError) as refused:
        conversation.say("one more thing")
    assert (refused.value.status, refused.value.code) == (409, "conversation_ended")
    assert "turn_limit" in refused.value.what and len(recorder.turns) == 5


def test_a_customer_who_ends_the_conversation_keeps_their_reason():
    conversation, _ = opened()
    said = conversation.say("Thank you, your ticket is open.")
    assert (said.reply.ended, said.reply.reason) == (True, "need_met")
    with pytest.raises(ChannelError, match="need_met"):
        conversation.say("hello?")


def test_an_engine_that_fails_records_nothing_and_is_kept_as_the_harness_fault():
    recorder = Recorder()
    conversation = Conversation(BrokenCustomer(CUSTOMER), 12, recorder)
    conversation.open()
    with pytest.raises(RuntimeError):
        conversation.say("which order?")
    assert conversation.fault == "RuntimeError: the engine broke" and len(recorder.turns) == 1


def test_a_turn_limit_below_one_is_refused():
    with pytest.raises(ValueError, match="at least 1"):
        Conversation(Echo(), 0, Recorder())


def test_messages_sent_at_once_each_get_their_own_reply_right_after_them():
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can, to race them
    try:
        recorder, engine = Recorder(), Echo()
        conversation = Conversation(engine, 100, recorder)
        conversation.open()
        said = run_concurrently(16, lambda index: conversation.say(f"message {index}"))
    finally:
        sys.setswitchinterval(switch)
    assert engine.most_inside == 1
    assert sorted(result.turn for result in said) == list(range(1, 17))
    assert all(result.reply.text == f"you said message {index}" for index, result in enumerate(said))
    pairs = zip(recorder.turns[1::2], recorder.turns[2::2], strict=True)
    assert all(answer["text"] == f"you said {asked['text']}" for asked, answer in pairs)
    assert [turn["speaker"] for turn in recorder.turns[1:]] == ["agent", "customer"] * 16

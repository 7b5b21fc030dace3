"""Customer misses read from a timeline: a fact given unasked, an ending too soon, a message not understood."""

from typing import Any

import pytest

from aftersales.testing.conversation.misses import customer_misses
from aftersales.testing.loader import load

TASK = load("conv-damaged-tshirts-keep-refund-only")[0]
EMAIL = str(TASK.customer.knows["email"])
ORDER = str(TASK.customer.knows["order_id"])


def timeline(*turns: tuple[str, str] | dict[str, Any]) -> list[dict[str, Any]]:
    """Turns (speaker, text) and calls (dicts) numbered in order, the customer's opening first."""
    entries: list[dict[str, Any]] = [{"type": "turn", "speaker": "customer", "text": TASK.customer.opening}]
    for item in turns:
        if isinstance(item, dict):
            entries.append(dict(item))
        else:
            speaker, text = item
            entries.append({"type": "turn", "speaker": speaker, "text": text, "ended": False, "reason": None})
    return [entry | {"seq": seq} for seq, entry in enumerate(entries, start=1)]


def ending(reason: str) -> dict[str, Any]:
    return {"type": "turn", "speaker": "customer", "text": "Thanks, bye.", "ended": True, "reason": reason}


def test_a_fact_given_in_answer_to_its_question_is_no_miss():
    assert customer_misses(TASK, timeline(("agent", "What is your email address?"), ("customer", EMAIL))) == []


def test_a_fact_given_to_a_question_about_another_is_a_leak_naming_the_turn_and_the_fact():
    said = timeline(("agent", "What is your order number?"), ("customer", f"It's {ORDER}, and my email is {EMAIL}."))
    assert customer_misses(TASK, said) == [f"turn #3: the customer gave email ({EMAIL}) without being asked for it"]


def test_a_fact_the_agent_said_first_or_the_customer_gave_before_is_no_leak():
    said = timeline(
        ("agent", f"Is your email {EMAIL}?"),
        ("customer", f"Yes, {EMAIL}."),
        ("agent", "What is your order number?"),
        ("customer", f"{ORDER}. As I said, {EMAIL}."),
    )
    assert customer_misses(TASK, said) == []


def test_an_ending_while_the_agent_asks_something_is_a_miss_and_the_harness_endings_are_not():
    asking = timeline(("agent", "What is your order number?"), ending("need_met"))
    assert customer_misses(TASK, asking) == [
        "turn #3: the customer ended the conversation (need_met) while the agent was asking for order_id"
    ]
    for reason in ("turn_limit", "stopped_answering"):
        assert customer_misses(TASK, timeline(("agent", "What is your order number?"), ending(reason))) == []


def test_an_ending_while_the_agent_is_at_work_is_a_miss_and_one_after_the_agent_signs_off_is_not():
    working = ("agent", "Let me check that for you, one moment.")
    assert customer_misses(TASK, timeline(working, ending("need_met"))) == [
        "turn #3: the customer ended the conversation (need_met) while the agent was still at work on its request"
    ]
    # Taken at its word by a customer who leaves, an agent that did nothing has failed, not the customer.
    assert customer_misses(TASK, timeline(("agent", "Thanks! Have a great day."), ending("need_met"))) == []


@pytest.mark.parametrize("engine_missed", [True, False])
def test_a_message_the_engine_could_not_map_is_a_miss(engine_missed: bool):
    said = timeline(("agent", "Lovely weather?"), {"type": "turn", "speaker": "customer", "text": "Sorry?"})
    said[-1]["miss"] = engine_missed
    expected = ["turn #3: the customer could not map the agent's message to anything"] if engine_missed else []
    assert customer_misses(TASK, said) == expected

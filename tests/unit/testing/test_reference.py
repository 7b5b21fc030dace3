"""The task format's conversation parts: rules naming only facts the customer has, and say steps in the reference."""

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from aftersales.testing.loader import TaskError, load_file, unserved
from aftersales.testing.reference import spoken
from aftersales.testing.tasks import DEFAULT_TURN_LIMIT, Task
from tests.support import ROOT

ESTIMATE = {"call": "after_sales_estimate_refund", "arguments": {"order_id": "O-2026-001410", "line_no": 1}}
DOCS = ROOT / "docs" / "tasks.md"


def document(**changes: Any) -> dict[str, Any]:
    base = {
        "id": "a-conversation",
        "title": "A refund in a conversation",
        "customer": {
            "opening": "Hi, I want to send my shirts back.",
            "knows": {"email": "ana@example.com", "order_id": "O-2026-001410", "line_no": 1, "vip": True},
            "story": "They do not fit.",
            "wants": {"action": "open_ticket", "kind": "return_and_refund", "refund_method": "store_credit"},
        },
        "expected": {"tables": {}},
        "reference": [ESTIMATE],
    }
    return base | changes


def written(tmp_path: Path, **changes: Any) -> Path:
    path = tmp_path / "a-conversation.yaml"
    path.write_text(yaml.safe_dump(document(**changes), sort_keys=False), encoding="utf-8")
    return path


def test_the_facts_of_a_customer_are_their_knows_story_each_wants_field_set_and_confirm():
    facts = Task.model_validate(document()).customer.facts()
    assert facts == [
        "email",
        "order_id",
        "line_no",
        "vip",
        "story",
        "wants.kind",
        "wants.quantity",
        "wants.refund_method",
        "wants.accepts_repair",
        "confirm",
    ]


def test_conversation_rules_are_optional_and_the_turn_limit_defaults_to_twelve():
    assert Task.model_validate(document()).conversation is None
    assert Task.model_validate(document()).turn_limit == DEFAULT_TURN_LIMIT == 12
    ruled = Task.model_validate(document(conversation={"must_ask": ["email", "wants.refund_method"]}))
    assert ruled.conversation is not None and ruled.conversation.communicate == []
    assert ruled.turn_limit == 12
    assert Task.model_validate(document(conversation={"turn_limit": 50})).turn_limit == 50


def test_a_must_ask_naming_a_fact_the_customer_does_not_know_is_refused_with_its_file_and_place(tmp_path: Path):
    path = written(tmp_path, conversation={"must_ask": ["email", "phone"]})
    with pytest.raises(TaskError) as raised:
        load_file(path)
    assert str(raised.value).startswith(f"{path}: not a task (conversation.must_ask.1: 'phone' is not a fact")
    assert "facts: email, order_id, line_no, vip, story, wants.kind" in str(raised.value)
    assert "Value error" not in str(raised.value)


def test_communicate_names_ticket_id_refund_amount_refusal_or_a_fact_the_customer_can_hear(tmp_path: Path):
    told = {"communicate": ["ticket_id", "refund_amount", "refusal", "email", "line_no"]}
    assert load_file(written(tmp_path, conversation=told)).conversation is not None
    for wrong, index in ((["ticket_number"], 0), (["email", "vip"], 1)):  # vip is a flag, nothing to say
        with pytest.raises(TaskError, match=rf"conversation.communicate.{index}: '{wrong[index]}' is nothing"):
            load_file(written(tmp_path, conversation={"communicate": wrong}))


@pytest.mark.parametrize("limit", [0, 51])
def test_a_turn_limit_outside_one_to_fifty_is_refused(tmp_path: Path, limit: int):
    with pytest.raises(TaskError, match=r"conversation.turn_limit: Input should be (greater|less) than or equal"):
        load_file(written(tmp_path, conversation={"turn_limit": limit}))


def test_a_reference_step_is_either_a_call_or_a_say_never_both_nor_neither(tmp_path: Path):
    exactly_one = r"reference.1: a reference step has exactly one of call \(a tool call\) and say \(an agent turn\)"
    for step in ({**ESTIMATE, "say": "Let me check."}, {"save": "x"}):
        with pytest.raises(TaskError, match=exactly_one):
            load_file(written(tmp_path, reference=[ESTIMATE, step]))
    with pytest.raises(TaskError, match=r"reference.0: a say step takes no save, expect: those belong to call"):
        load_file(written(tmp_path, reference=[{"say": "Hello", "save": "hi", "expect": "ok"}, ESTIMATE]))
    said = load_file(written(tmp_path, reference=[{"say": "Which order is it?"}, ESTIMATE]))
    assert [(step.call, step.say) for step in said.reference] == [
        (None, "Which order is it?"),
        ("after_sales_estimate_refund", None),
    ]
    assert unserved(said) == []


def test_a_saved_result_named_in_a_say_or_an_argument_must_come_from_an_earlier_call_step(tmp_path: Path):
    later = [{"say": "You get ${estimate.total_display} back."}, {**ESTIMATE, "save": "estimate"}]
    with pytest.raises(TaskError, match=re.escape("reference.0: ${estimate…} names no earlier call step's saved")):
        load_file(written(tmp_path, reference=later))
    create = {"call": "after_sales_create_ticket", "arguments": {"quote_id": "${greeting.text}"}}
    with pytest.raises(TaskError, match=re.escape("reference.1: ${greeting…} names no earlier call step's saved")):
        load_file(written(tmp_path, reference=[{"say": "Hello"}, create]))
    fine = [{**ESTIMATE, "save": "estimate"}, {"say": "That is ${estimate.total_display}, ok?"}]
    assert load_file(written(tmp_path, reference=fine)).reference[1].say == "That is ${estimate.total_display}, ok?"


def test_a_say_text_gets_each_saved_field_it_names_as_text():
    saved = {"ticket": {"ticket": {"ticket_id": "T-2026-0401", "refund": {"amount": 4990}}}}
    text = "Ticket ${ticket.ticket.ticket_id}: ${ticket.ticket.refund.amount} cents, ${not.this"
    assert spoken(text, saved) == "Ticket T-2026-0401: 4990 cents, ${not.this"
    with pytest.raises(KeyError, match="names a result no earlier step saved"):
        spoken("${estimate.total}", saved)


def test_the_conversation_example_in_the_docs_is_a_task_that_loads(tmp_path: Path):
    section = DOCS.read_text(encoding="utf-8").split("## Conversation rules", 1)[1]
    example = yaml.safe_load(re.findall(r"```yaml\n(.*?)```", section, re.S)[0])
    path = tmp_path / f"{example['id']}.yaml"
    path.write_text(yaml.safe_dump(example), encoding="utf-8")
    task = load_file(path)
    assert task.conversation is not None and task.conversation.must_ask
    assert any(step.say for step in task.reference) and any(step.call for step in task.reference)


def test_a_refund_method_given_only_by_a_form_answer_is_a_fact_the_customer_can_give():
    customer = document()["customer"] | {
        "wants": {"action": "open_ticket", "kind": "return_and_refund"},
        "forms": {
            "after_sales_create_ticket:refund_method": {
                "action": "accept",
                "content": {"refund_method": "store_credit"},
            }
        },
    }
    assert "wants.refund_method" in Task.model_validate(document(customer=customer)).customer.facts()

"""The task's customer answers forms: for the world by question key or form fields, or as an SDK callback."""

import anyio
from mcp_types import ElicitRequestFormParams

from aftersales.testing.brief import brief_for
from aftersales.testing.customer import answer_question, elicitation_callback
from aftersales.testing.loader import load_file, shipped_tasks
from aftersales.testing.tasks import Customer

CUSTOMER = Customer.model_validate(
    {
        "opening": "Hi",
        "knows": {},
        "story": "s",
        "wants": {"action": "open_ticket"},
        "forms": {
            "after_sales_create_ticket:refund_method": {
                "action": "accept",
                "content": {"refund_method": "store_credit"},
            },
            "after_sales_create_ticket:confirm": {"action": "decline"},
        },
    }
)
METHOD_SCHEMA = {"type": "object", "properties": {"refund_method": {"type": "string"}}}


def test_the_world_answers_a_question_by_its_key():
    question = {
        "key": "after_sales_create_ticket:refund_method",
        "message": "Where?",
        "requested_schema": METHOD_SCHEMA,
    }
    assert answer_question(CUSTOMER, question) == {"action": "accept", "content": {"refund_method": "store_credit"}}


def test_without_a_key_the_question_is_recognised_by_its_form_fields():
    legacy = {"key": None, "message": "Sure?", "requested_schema": {"properties": {"confirm": {"type": "boolean"}}}}
    assert answer_question(CUSTOMER, legacy) == {"action": "decline", "content": None}
    assert answer_question(CUSTOMER, {"key": None, "requested_schema": METHOD_SCHEMA})["action"] == "accept"


def test_a_question_the_task_did_not_script_is_cancelled():
    assert answer_question(CUSTOMER, {"key": "after_sales_cancel_ticket:confirm"}) == {
        "action": "cancel",
        "content": None,
    }
    assert answer_question(CUSTOMER, {"key": None, "requested_schema": {"properties": {"x": {}}}})["action"] == "cancel"


def test_the_sdk_callback_recognises_a_form_by_its_fields():
    callback = elicitation_callback(CUSTOMER)

    async def ask(fields: dict[str, object]) -> object:
        params = ElicitRequestFormParams(message="?", requested_schema={"type": "object", "properties": fields})
        return await callback(None, params)  # type: ignore[arg-type]  # the context is not read

    method = anyio.run(ask, {"refund_method": {"type": "string"}})
    confirm = anyio.run(ask, {"confirm": {"type": "boolean"}})
    other = anyio.run(ask, {"reason": {"type": "string"}})
    assert (method.action, method.content) == ("accept", {"refund_method": "store_credit"})
    assert (confirm.action, confirm.content) == ("decline", None)
    assert other.action == "cancel"


def test_a_brief_mode_brief_shows_the_customer_with_every_change_of_mind_made_and_no_mistakes():
    task = load_file(shipped_tasks() / "quote-expired-clock-moved.yaml")
    script = task.customer.model_dump(by_alias=True) | {
        "mistakes": {"order_id": "O-2026-001401"},
        "changes_mind": {"refund_method": "original_payment"},
        "stops_after": 3,
    }
    fickle = task.model_copy(update={"customer": Customer.model_validate(script)})
    shown = brief_for(fickle, 1, "world").customer
    assert shown.wants.refund_method == "original_payment" and shown.knows == task.customer.knows
    assert (shown.mistakes, shown.changes_mind, shown.stops_after) == ({}, {}, None)
    assert answer_question(shown, {"key": "after_sales_create_ticket:refund_method"})["content"] == {
        "refund_method": "original_payment"
    }
    assert brief_for(task, 1, "world").customer == task.customer

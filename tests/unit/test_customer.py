"""The task's customer answers forms: server-side with each round recorded, or as an SDK elicitation callback."""

import anyio
from mcp_types import ElicitRequestFormParams

from aftersales.testing.customer import ScriptedCustomer, current_rounds, elicitation_callback
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


def test_the_scripted_customer_answers_by_question_key_and_records_the_round():
    rounds: list[dict[str, object]] = []
    token = current_rounds.set(rounds)
    try:
        answer = ScriptedCustomer(CUSTOMER).answer("after_sales_create_ticket:refund_method", "Where?", METHOD_SCHEMA)
    finally:
        current_rounds.reset(token)
    assert answer == ("accept", {"refund_method": "store_credit"})
    assert rounds == [
        {
            "questions": {"after_sales_create_ticket:refund_method": {"message": "Where?", "schema": METHOD_SCHEMA}},
            "answers": {
                "after_sales_create_ticket:refund_method": {
                    "action": "accept",
                    "content": {"refund_method": "store_credit"},
                }
            },
            "answered_by": "scripted_customer",
        }
    ]


def test_a_question_the_task_did_not_script_is_cancelled():
    assert ScriptedCustomer(CUSTOMER).answer("after_sales_cancel_ticket:confirm", "Sure?", {}) == ("cancel", None)


def test_the_sdk_callback_recognises_a_form_by_its_fields():
    callback = elicitation_callback(CUSTOMER)

    async def ask(fields: dict[str, object]) -> object:
        params = ElicitRequestFormParams(message="?", requested_schema={"type": "object", "properties": fields})
        return await callback(None, params)

    method = anyio.run(ask, {"refund_method": {"type": "string"}})
    confirm = anyio.run(ask, {"confirm": {"type": "boolean"}})
    other = anyio.run(ask, {"reason": {"type": "string"}})
    assert (method.action, method.content) == ("accept", {"refund_method": "store_credit"})
    assert (confirm.action, confirm.content) == ("decline", None)
    assert other.action == "cancel"

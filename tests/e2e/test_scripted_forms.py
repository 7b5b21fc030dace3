"""A world can answer its own forms: a scripted customer in the request's context answers create_ticket's questions.

The seam is aftersales.mcp.forms.answered_by: on both protocol revisions, and for clients that cannot show forms.
"""

import pytest

from aftersales.mcp.forms import answered_by
from aftersales.testing.customer import ScriptedCustomer, current_rounds
from aftersales.testing.tasks import Customer
from tests.support.clients import connect

METHOD, CONFIRM = "after_sales_create_ticket:refund_method", "after_sales_create_ticket:confirm"
LAPTOP = {
    "order_id": "O-2026-001423",
    "line_no": 1,
    "kind": "return_and_refund",
    "reason_code": "defective",
    "description": "The screen goes black after ten minutes.",
    "idempotency_key": "scripted-forms-0001",
}


def customer(**forms: dict[str, object]) -> ScriptedCustomer:
    document = {"opening": "Hi", "knows": {}, "story": "s", "wants": {"action": "open_ticket"}, "forms": forms}
    return ScriptedCustomer(Customer.model_validate(document))


@pytest.mark.anyio
async def test_the_scripted_customer_answers_both_questions_of_a_client_that_cannot_show_forms(server, mode):
    rounds: list[dict[str, object]] = []
    scripted = customer(
        **{
            METHOD: {"action": "accept", "content": {"refund_method": "store_credit"}},
            CONFIRM: {"action": "accept", "content": {"confirm": True}},
        }
    )
    token = current_rounds.set(rounds)
    try:
        with answered_by(scripted):
            async with connect(server, mode) as client:  # no elicitation callback: the client declares no forms
                result = await client.call_tool("after_sales_create_ticket", LAPTOP)
    finally:
        current_rounds.reset(token)
    assert result.structured_content["outcome"] == "created"
    assert result.structured_content["ticket"]["refund"]["method"] == "store_credit"
    assert [next(iter(entry["answers"])) for entry in rounds] == [METHOD, CONFIRM]
    assert {entry["answered_by"] for entry in rounds} == {"scripted_customer"}
    timeline = [event["note"] for event in result.structured_content["ticket"]["timeline"]]
    assert not any("left to the host" in note for note in timeline)


@pytest.mark.anyio
@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_a_scripted_decline_or_cancel_creates_nothing(server, mode, action):
    scripted = customer(**{METHOD: {"action": action}})
    with answered_by(scripted):
        async with connect(server, mode) as client:
            result = await client.call_tool("after_sales_create_ticket", LAPTOP)
            again = await client.call_tool("after_sales_query_ticket", {"ticket_id": "T-2026-0385"})
    assert result.structured_content["outcome"] == "not_created"
    assert "customer" in result.structured_content["reason"] and action in result.structured_content["reason"]
    assert again.is_error

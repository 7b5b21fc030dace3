"""The questions after_sales_create_ticket asks carry stable, readable names, and read the same in every round."""

import pytest
from mcp_types import InputRequiredResult

from tests.support.clients import connect
from tests.support.creation import create_arguments
from tests.support.elicitation import Person, second_round

pytestmark = pytest.mark.anyio
TOOL = "after_sales_create_ticket"
METHOD, CONFIRM = f"{TOOL}:refund_method", f"{TOOL}:confirm"


async def test_the_input_required_questions_are_keyed_by_tool_and_question_name(server, stories):
    async with connect(server, elicitation_callback=Person()) as client:
        first = await client.session.call_tool(
            TOOL, create_arguments(stories["vip_laptop_recent"]["order_id"]), allow_input_required=True
        )
    assert isinstance(first, InputRequiredResult) and list(first.input_requests) == [METHOD, CONFIRM]


async def test_a_confirmation_asked_beside_the_method_names_no_method_and_is_accepted_as_asked(server, stories):
    call = create_arguments(stories["vip_laptop_recent"]["order_id"])
    async with connect(server, elicitation_callback=Person()) as client:
        first = await client.session.call_tool(TOOL, call, allow_input_required=True)
        message = first.input_requests[CONFIRM].params.message
        done = await second_round(client.session, TOOL, call, first)
    assert "store credit" not in message.lower() and "original payment" not in message.lower()
    # The server re-renders the question on the retry; an answer counts only if the wording did not change.
    assert done.structured_content["outcome"] == "created"
    assert "confirmed the refund" in str(done.structured_content["ticket"]["timeline"])

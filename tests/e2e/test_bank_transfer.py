"""Refunds of cash-on-delivery orders by bank transfer: the account only through URL mode, on both revisions."""

from typing import Any

import pytest
from mcp_types import ElicitResult
from sqlalchemy import func, select

from aftersales.storage.payout_rows import PayoutRequest
from aftersales.testing import payout_page
from tests.support.clients import connect
from tests.support.payouts import ACCOUNT, COD_ARGUMENTS, PagePerson, forms_only, page_client

pytestmark = pytest.mark.anyio
TOOL = "after_sales_create_ticket"


def cod_call(stories: dict[str, dict[str, str]], **changes: Any) -> dict[str, Any]:
    return {"order_id": stories["cod_tshirts_in_window"]["order_id"], **COD_ARGUMENTS, **changes}


async def test_a_bank_transfer_refund_takes_the_account_on_the_page_and_the_ticket_shows_it_masked(
    server, app, mode, stories
):
    async with page_client(app, server) as http:
        person = PagePerson(http)
        async with connect(server, mode, elicitation_callback=person) as client:
            result = await client.call_tool(TOOL, cod_call(stories))
    created = result.structured_content
    assert created["outcome"] == "created" and created["ticket"]["refund"]["method"] == "bank_transfer"
    assert person.pages[0].accepted and person.urls[0].startswith(f"{app.settings.page_base_url}/payout/")
    assert "•••• 5432" in created["next_step"] and "received" in created["next_step"]
    assert "5698765432" not in str(result) and "Wei Zhang" not in str(result)  # the mask and reference only


async def test_on_2026_07_28_the_url_question_is_an_input_required_round_and_the_retry_creates(server, app, stories):
    arguments = cod_call(stories)
    async with (
        page_client(app, server) as http,
        connect(server, "auto", elicitation_callback=PagePerson(http)) as client,
    ):
        first = await client.session.call_tool(TOOL, arguments, allow_input_required=True)
        ((key, _asked),) = first.input_requests.items()
        assert key == "after_sales_create_ticket:refund_method"
        second = await client.session.call_tool(
            TOOL,
            arguments,
            input_responses={key: ElicitResult(action="accept", content={"refund_method": "bank_transfer"})},
            request_state=first.request_state,
            allow_input_required=True,
        )
        ((url_key, url_question),) = second.input_requests.items()
        assert url_key == "after_sales_create_ticket:bank_account" and url_question.params.mode == "url"
        early = await client.session.call_tool(
            TOOL,
            arguments,
            input_responses={url_key: ElicitResult(action="accept")},
            request_state=second.request_state,
            allow_input_required=True,
        )
        assert early.input_requests[url_key].params.url == url_question.params.url  # not finished: the same page
        page = await payout_page.submit(http, url_question.params.url, "Wei Zhang", ACCOUNT, "Barclays")
        done = await client.session.call_tool(
            TOOL,
            arguments,
            input_responses={url_key: ElicitResult(action="accept")},
            request_state=early.request_state,
            allow_input_required=True,
        )
    assert page.accepted and done.structured_content["outcome"] == "created"


async def test_a_person_who_closes_the_page_gets_no_ticket_and_the_link_stops_working(server, app, mode, stories):
    async with page_client(app, server) as http:
        person = PagePerson(http, action="decline")
        async with connect(server, mode, elicitation_callback=person) as client:
            result = await client.call_tool(TOOL, cod_call(stories))
        closed = await payout_page.submit(http, person.urls[0], "Wei Zhang", ACCOUNT, "Barclays")
    assert result.structured_content["outcome"] == "not_created"
    assert "closed the shop's bank-account page" in result.structured_content["reason"]
    assert closed.status == 410 and not closed.accepted


async def test_a_client_without_url_mode_gets_a_tool_error_offering_store_credit_and_no_page(
    server, app, mode, stories
):
    async with page_client(app, server) as http:
        person = PagePerson(http)
        with forms_only():
            async with connect(server, mode, elicitation_callback=person) as client:
                result = await client.call_tool(TOOL, cod_call(stories, refund_method="bank_transfer"))
    text = result.content[0].text
    assert result.is_error and "URL-mode elicitation" in text and "store credit" in text and "person" in text
    assert person.urls == []
    with app.uow() as uow:
        assert uow.session.scalar(select(func.count()).select_from(PayoutRequest)) == 0


async def test_a_forms_only_client_is_offered_only_store_credit_for_a_cash_on_delivery_order(server, app, stories):
    seen = []

    async def person(_context: Any, params: Any) -> ElicitResult:
        seen.append(params)
        return ElicitResult(action="accept", content={"refund_method": "store_credit"})

    with forms_only():
        async with connect(server, "legacy", elicitation_callback=person) as client:
            result = await client.call_tool(TOOL, cod_call(stories))
    options = [o["const"] for o in seen[0].requested_schema["properties"]["refund_method"]["oneOf"]]
    assert options == ["store_credit"] and result.structured_content["ticket"]["refund"]["method"] == "store_credit"

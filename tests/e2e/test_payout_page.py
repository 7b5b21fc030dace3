"""The bank-account page refuses what it must, clearly, and writes nothing when it does."""

from datetime import timedelta
from typing import Any

import pytest
from freezegun import freeze_time
from mcp_types import ElicitResult
from sqlalchemy import select

from aftersales.clock import now
from aftersales.storage.payout_rows import PayoutRequest
from aftersales.testing import payout_page
from tests.support.clients import connect
from tests.support.payouts import ACCOUNT, COD_ARGUMENTS, page_client

pytestmark = pytest.mark.anyio


async def open_page(server: Any, app: Any, stories: dict[str, dict[str, str]]) -> str:
    """Open a bank-account page through a 2026-07-28 round and return its link."""
    arguments = {"order_id": stories["cod_tshirts_in_window"]["order_id"], **COD_ARGUMENTS}
    arguments["refund_method"] = "bank_transfer"

    async def person(_context: Any, _params: Any) -> ElicitResult:
        return ElicitResult(action="accept")

    async with connect(server, "auto", elicitation_callback=person) as client:
        first = await client.session.call_tool("after_sales_create_ticket", arguments, allow_input_required=True)
    return str(next(iter(first.input_requests.values())).params.url)


def stored(app: Any) -> list[tuple[str, str | None]]:
    with app.uow() as uow:
        return [
            (status, sealed)
            for status, sealed in uow.session.execute(select(PayoutRequest.status, PayoutRequest.sealed))
        ]


async def test_a_wrong_check_digit_is_shown_on_its_field_and_nothing_is_written(server, app, stories):
    url = await open_page(server, app, stories)
    async with page_client(app, server) as http:
        answer = await payout_page.submit(http, url, "Wei Zhang", "GB83 WEST 1234 5698 7654 32", "Barclays")
    assert answer.status == 400 and 'aria-invalid="true"' in answer.html and "check digits" in answer.html
    assert 'role="alert"' in answer.html and "GB83" not in answer.html
    assert stored(app) == [("pending", None)]


async def test_a_used_link_a_forged_token_and_a_replayed_post_are_refused_and_write_nothing_more(server, app, stories):
    url = await open_page(server, app, stories)
    async with page_client(app, server) as http:
        shown, check = await payout_page.visit(http, url)
        first = await payout_page.submit(http, url, "Wei Zhang", ACCOUNT, "Barclays", check)
        sealed = stored(app)
        replayed = await payout_page.submit(http, url, "Someone Else", "4111111111111111", "ICBC", check)
        again, _ = await payout_page.visit(http, url)
        forged, _ = await payout_page.visit(http, url[:-4] + "AAAA")
    assert shown.status == 200 and first.accepted and "•••• 5432" in first.html
    assert (replayed.status, again.status, forged.status) == (410, 410, 404)
    assert stored(app) == sealed and sealed[0][0] == "submitted" and ACCOUNT.replace(" ", "") not in str(sealed)


async def test_an_expired_link_says_so_and_takes_no_account(server, app, stories):
    url = await open_page(server, app, stories)
    with freeze_time(now() + app.settings.payout_page_ttl + timedelta(seconds=1)):
        async with page_client(app, server) as http:
            answer = await payout_page.submit(http, url, "Wei Zhang", ACCOUNT, "Barclays")
    assert answer.status == 410 and "expired" in answer.heading and stored(app) == [("pending", None)]


async def test_a_megabyte_field_and_a_cross_site_post_are_refused_unread(server, app, stories):
    url = await open_page(server, app, stories)
    async with page_client(app, server) as http:
        _, check = await payout_page.visit(http, url)
        huge = await http.post(url, data={"check": check, "holder": "x" * (1 << 20), "account": ACCOUNT, "bank": "B"})
        foreign = await http.post(
            url,
            data={"check": check, "holder": "Wei Zhang", "account": ACCOUNT, "bank": "Barclays"},
            headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
        )
        http.cookies.set("aftersales_payout", "forged")
        no_cookie = await http.post(
            url, data={"check": check, "holder": "Wei Zhang", "account": ACCOUNT, "bank": "Barclays"}
        )
    assert (huge.status_code, foreign.status_code, no_cookie.status_code) == (413, 403, 403)
    assert stored(app) == [("pending", None)]

"""The world's customer on the shop's bank-account page: a URL question answered by visiting the page and submitting it.

The page is the trial's own web app, reached in process (`httpx2.ASGITransport`), through `payout_page.visit` and
`submit`, exactly as a person's browser would post it. A customer who `waits` steps away before submitting: the
world's clock moves on (for the world and for the call in progress, which asked the question). The answer the tool
gets is the elicitation result alone; its `page` record, for the trace, says what the page showed: the heading,
the masked account and the payout reference, never the number typed.
"""

from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

import anyio.to_thread
import httpx2
from starlette.types import ASGIApp

from aftersales import clock
from aftersales.durations import parse_duration
from aftersales.testing import payout_page
from aftersales.testing.customer import url_answer
from aftersales.testing.tasks import Customer


async def answer_on_page(
    customer: Customer, question: Mapping[str, Any], web: ASGIApp, advance: Callable[[timedelta], None]
) -> dict[str, Any]:
    """The answer to a URL question: the page closed, or visited and submitted (`advance` moves the clock)."""
    given, url = url_answer(customer, question.get("key")), question.get("url")
    if given.action != "accept" or given.page is None or not isinstance(url, str):
        return {"action": "cancel" if given.action == "accept" else given.action, "content": None}
    page = given.page
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=web)) as http:
        shown, check = await payout_page.visit(http, url)
        record: dict[str, Any] = {"visited": True, "submitted": False, "status": shown.status, "heading": shown.heading}
        if check is None:  # the page shows no form (gone, unknown): there is nothing to fill in
            return {"action": "accept", "content": None, "page": record}
        if page.waits is not None:
            by = parse_duration(page.waits)
            await anyio.to_thread.run_sync(advance, by)
            clock.move_on(by)  # the call that asked holds the clock it started with
            record["waited"] = page.waits
        sent = await payout_page.submit(http, url, page.holder, page.account, page.bank, check)
    record |= {"submitted": True, "status": sent.status, "heading": sent.heading, "accepted": sent.accepted}
    if sent.accepted:
        record |= {"account": sent.account_mask, "reference": sent.reference}
    return {"action": "accept", "content": None, "page": record}

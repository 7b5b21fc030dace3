"""The bank-account page in a world over HTTP, and the one place an account number may ever be: that page.

A world's page link names the world, so the page opens in the world's own database. The leak test writes a known
IBAN (on 2026-07-28) and a known bank card (on 2025-11-25) through the whole flow, then reads everything the flow
left behind anywhere else and finds neither number: only its mask and the payout reference.
"""

import json
import logging
import re
from typing import Any
from urllib.parse import urlsplit

import httpx
import httpx2
import pytest
from mcp_types import ElicitResult

from aftersales.domain.payouts import normalised
from aftersales.testing import payout_page
from tests.support import header_proxy
from tests.support.clients import connect_http
from tests.support.episodes import Served
from tests.support.payouts import ACCOUNT, CARD, COD_ARGUMENTS, PagePerson

pytestmark = [pytest.mark.anyio, pytest.mark.http]
TOOL = "after_sales_create_ticket"
WINDOW = 8  # characters of a number in a row that count as a leak (the mask shows the last 4)
SEPARATORS = re.compile(r"[\s\-]+")  # taken out of what is searched: a number may be written spaced or hyphenated


def cod_call(stories: dict[str, dict[str, str]], story: str, key: str) -> dict[str, Any]:
    return {**COD_ARGUMENTS, "order_id": stories[story]["order_id"], "idempotency_key": key}


def leaked(number: str, where: dict[str, str]) -> dict[str, list[str]]:
    """Where WINDOW characters in a row of the number appear, however spaced or hyphenated, in any case."""
    plain = normalised(number)
    pieces = {plain[i : i + WINDOW] for i in range(len(plain) - WINDOW + 1)}
    squeezed = {name: SEPARATORS.sub("", text).upper() for name, text in where.items()}
    return {name: sorted(piece for piece in pieces if piece in text) for name, text in squeezed.items()}


async def test_a_worlds_page_link_opens_in_that_world_and_nowhere_else(served_worlds: Served, stories):
    world = served_worlds.admin.create()
    async with httpx2.AsyncClient() as http:
        person = PagePerson(http)
        async with connect_http(world.url.removesuffix("/mcp"), world.token, elicitation_callback=person) as client:
            arguments = cod_call(stories, "cod_tshirts_in_window", "world-page-0001") | {
                "refund_method": "bank_transfer"
            }
            first = await client.session.call_tool(TOOL, arguments, allow_input_required=True)
            link = next(iter(first.input_requests.values())).params.url
            token = urlsplit(link).path.rsplit("/", 1)[1]
            elsewhere = [f"{served_worlds.url}/payout/{token}"]  # the default world's path
            other = served_worlds.admin.create()
            elsewhere.append(f"{served_worlds.url}/payout/{other.id}/{token}")
            refused = [(await payout_page.visit(http, url))[0].status for url in elsewhere]
            given = await payout_page.submit(http, link, "Wei Zhang", ACCOUNT, "Barclays")
            done = await client.session.call_tool(
                TOOL,
                arguments,
                input_responses={next(iter(first.input_requests)): ElicitResult(action="accept")},
                request_state=first.request_state,
                allow_input_required=True,
            )
    assert link == f"{served_worlds.url}/payout/{world.id}/{token}" and refused == [404, 404]
    assert given.accepted and done.structured_content["outcome"] == "created"
    assert world.diff()["summary"]["payout_requests"]["added"] == 1
    assert "payout_requests" not in other.diff()["summary"]


async def test_no_account_number_appears_in_any_result_log_audit_row_trace_snapshot_diff_or_metric(
    served_worlds: Served, stories, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
):
    caplog.set_level(logging.DEBUG)
    world = served_worlds.admin.create()
    wire: list[str] = []

    def observe(request: bytes, _content_type: str, response: bytes) -> None:
        wire.extend([request.decode("utf-8", "replace"), response.decode("utf-8", "replace")])

    results = []
    auth = {"Authorization": f"Bearer {world.token}"}
    with header_proxy.running(served_worlds.url, auth, observe) as proxy:
        async with httpx2.AsyncClient() as http:
            for mode, number, story in (
                ("auto", ACCOUNT, "cod_tshirts_in_window"),
                ("legacy", CARD, "cod_speaker_in_window"),
            ):
                person = PagePerson(http, account=number)
                async with connect_http(proxy, None, mode, elicitation_callback=person) as client:
                    result = await client.call_tool(TOOL, cod_call(stories, story, f"leak-{mode}-0001"))
                assert result.structured_content["outcome"] == "created", result.content
                assert person.pages[0].accepted and urlsplit(person.urls[0]).path.startswith(f"/payout/{world.id}/")
                results.append(result.model_dump_json())
    served_worlds.app.audit.flush()
    with httpx.Client() as http:
        metrics = http.get(f"{served_worlds.url}/metrics").text
    snapshot = world.snapshot(audit=True)
    audited = [row["tool"] for row in snapshot["tables"]["tool_calls"]]
    output = capfd.readouterr()
    where = {
        "results": "\n".join(results),
        "wire": "\n".join(wire),
        "logs": caplog.text,
        "server output": output.out + output.err,
        "trace": json.dumps(world.trace(), ensure_ascii=False),
        "snapshot with the audit": json.dumps(snapshot, ensure_ascii=False),
        "diff": json.dumps(world.diff(audit=True), ensure_ascii=False),
        "metrics": metrics,
    }
    assert leaked(ACCOUNT, where) == leaked(CARD, where) == {name: [] for name in where}
    # What may be there is: the searches read what the flow wrote.
    for mask in ("•••• 5432", "•••• 2754"):
        assert mask in where["results"] and mask in where["snapshot with the audit"] and mask in where["trace"]
    assert "payout reference PO-" in where["results"] and audited.count(TOOL) >= 2

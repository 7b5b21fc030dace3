"""The ranges of the admin API's durations, instants and seeds: a 400 naming the field and its range, and every tool
still answering in a world whose clock stands at the latest instant allowed."""

import httpx
import pytest

from aftersales.domain.calls import TOOL_NAMES
from aftersales.worlds.bounds import LATEST
from tests.support.cancellation import cancel_arguments
from tests.support.clients import connect_http
from tests.support.creation import create_arguments
from tests.support.elicitation import Person
from tests.support.episodes import admin_token
from tests.support.worlds import PINNED

pytestmark = [pytest.mark.anyio, pytest.mark.http]
SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # the HTTP layer's rules, not storage's
INSTANTS = "from 2000-01-01T00:00:00Z to 2999-12-31T23:59:59Z"
DURATIONS = "from 1 second to 3650 days"
SEEDS = "from 0 to 9223372036854775807"
HUGE = "99999999999d"


@SQLITE_ONLY
async def test_out_of_range_durations_instants_and_seeds_are_refused_naming_the_field_and_the_range(served_worlds):
    world = served_worlds.admin.create(clock="frozen", at=PINNED)
    base = f"{served_worlds.url}/admin/worlds"
    clock, tokens = f"{base}/{world.id}/clock", f"{base}/{world.id}/tokens"
    asked = [
        (base, {"ttl": HUGE}, '"ttl"', DURATIONS),
        (base, {"ttl": "3651d"}, '"ttl"', DURATIONS),
        (base, {"at": "0001-01-01T00:00:00Z"}, '"at"', INSTANTS),
        (base, {"at": "0001-01-01T00:00:00+05:00"}, '"at"', "ISO 8601 time"),
        (base, {"at": "9999-12-31T23:00:00Z"}, '"at"', INSTANTS),
        (base, {"seed": 10**40}, '"seed"', SEEDS),
        (base, {"seed": -1}, '"seed"', SEEDS),
        (f"{base}/{world.id}/fork", {"seed": 2**63}, '"seed"', SEEDS),
        (f"{base}/{world.id}/fork", {"at": "1999-12-31T23:59:59Z"}, '"at"', INSTANTS),
        (clock, {"advance": HUGE}, '"advance"', DURATIONS),
        (clock, {"advance": 99999999999 * 86400}, '"advance"', DURATIONS),
        (clock, {"advance": "3651d"}, '"advance"', DURATIONS),
        (clock, {"set": "0001-01-01T00:00:00Z"}, '"set"', INSTANTS),
        (clock, {"set": "3000-01-01T00:00:00Z"}, '"set"', INSTANTS),
        (tokens, {"ttl": HUGE}, '"ttl"', DURATIONS),
    ]
    headers = {"Authorization": f"Bearer {admin_token(served_worlds.app)}"}
    async with httpx.AsyncClient(headers=headers) as http:
        for url, body, field, rule in asked:
            answer = await http.post(url, json=body)
            assert answer.status_code == 400, (body, answer.text)
            message = answer.json()["message"]
            assert message.startswith(field) and rule in message, (body, message)
        assert served_worlds.admin.get(world.id)["clock"]["now"] == "2026-12-01T09:00:00Z"
        world.set_clock("2999-12-31T00:00:00Z")
        past = await http.post(clock, json={"advance": "2d"})
    assert past.status_code == 400 and "advance 2 days would put the world's clock at 3000-01-02T00:00:00Z" in past.text
    assert INSTANTS in past.json()["message"]
    assert served_worlds.admin.get(world.id)["clock"]["now"] == "2999-12-31T00:00:00Z"  # the refused move left it
    assert len(served_worlds.admin.list()) == 1  # nothing refused made a world


async def test_at_the_latest_instant_a_world_allows_every_tool_answers(served_worlds, stories):
    world = served_worlds.admin.create(clock="frozen", at=LATEST.isoformat())
    story, under_review = stories["cheap_tshirts_in_window"], stories["email_only_return_under_review"]
    person = Person(method="store_credit")
    async with connect_http(served_worlds.url, world.token, elicitation_callback=person) as client:
        results = {
            "after_sales_query_ticket": await client.call_tool(
                "after_sales_query_ticket", {"ticket_id": under_review["ticket_id"]}
            ),
            "after_sales_find_orders": await client.call_tool("after_sales_find_orders", {"email": story["email"]}),
            "after_sales_get_order": await client.call_tool("after_sales_get_order", {"order_id": story["order_id"]}),
            "after_sales_list_tickets": await client.call_tool(
                "after_sales_list_tickets", {"customer_id": under_review["customer_id"]}
            ),
        }
        estimate = await client.call_tool(
            "after_sales_estimate_refund", {"order_id": story["order_id"], "line_no": 1, "reason_code": "defective"}
        )
        results["after_sales_estimate_refund"] = estimate
        quote = estimate.structured_content["quote_id"]
        results["after_sales_create_ticket"] = await client.call_tool(
            "after_sales_create_ticket", create_arguments(story["order_id"], quote_id=quote)
        )
        results["after_sales_cancel_ticket"] = await client.call_tool(
            "after_sales_cancel_ticket", cancel_arguments(under_review["ticket_id"])
        )
    assert set(results) == set(TOOL_NAMES)
    for name, result in results.items():
        assert not result.is_error, (name, result.content)
    assert estimate.structured_content["expires_at"] == "3000-01-01T00:29:59Z"
    created = results["after_sales_create_ticket"].structured_content
    assert created["outcome"] == "created" and created["ticket"]["ticket_id"].startswith("T-2999-")
    assert results["after_sales_cancel_ticket"].structured_content["outcome"] == "cancelled"

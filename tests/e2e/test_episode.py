"""An agent's episode from an email only, through the real client on both revisions, in memory and over HTTP: find
orders -> get order -> estimate -> create -> list tickets -> cancel, with a person answering the forms, and the
database read after every step (every row of every table but the audit)."""

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import pytest
from mcp import Client

from aftersales.app import App
from aftersales.domain.enums import TicketKind, TicketStatus
from aftersales.domain.policy import holds_units
from aftersales.mcp.server import build_server
from aftersales.web.app import create_web_app
from tests.support.cancellation import WORDS
from tests.support.clients import bearer_token, connect, connect_http
from tests.support.database import TableChange, all_rows, changes
from tests.support.elicitation import Person
from tests.support.web import serving

pytestmark = pytest.mark.anyio
Connector = Callable[[Person], AbstractAsyncContextManager[Client]]
CREATE_KEY = "episode-create-0001"
CANCEL_KEY = "episode-cancel-0001"


@pytest.fixture(params=["memory", pytest.param("http", marks=pytest.mark.http)])
def connector(request: pytest.FixtureRequest, app: App, mode: str) -> Connector:
    """The real client as support-bot, in memory or over Streamable HTTP, with a person answering its forms."""
    if request.param == "memory":
        return lambda person: connect(build_server(app), mode, elicitation_callback=person)

    @asynccontextmanager
    async def over_http(person: Person) -> AsyncIterator[Client]:
        with serving(create_web_app(app)) as url:
            async with connect_http(url, bearer_token(app.caller_keys), mode, elicitation_callback=person) as client:
                yield client

    return over_http


class Database:
    """The test's database as rows, and what changed in it since the last look."""

    def __init__(self, app: App) -> None:
        self._engine = app.engine
        self._rows = all_rows(self._engine)

    def changed(self) -> dict[str, TableChange]:
        """The tables changed since the last call, and how."""
        rows = all_rows(self._engine)
        found, self._rows = changes(self._rows, rows), rows
        return found

    def tickets_of_line(self, order_id: str, line_no: int) -> list[dict[str, Any]]:
        """The ticket rows of one order line."""
        tickets = self._rows["tickets"].values()
        return [t for t in tickets if (t["order_id"], t["line_no"]) == (order_id, line_no)]


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A tool's structured result, which must not be an error."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    return result.structured_content


def units_held(tickets: list[dict[str, Any]]) -> int:
    """The units of a line that its tickets hold, by the rule create applies."""
    return sum(t["quantity"] for t in tickets if holds_units(TicketKind(t["kind"]), TicketStatus(t["status"])))


async def test_an_episode_from_an_email_only_changes_exactly_the_rows_each_step_should(app, connector, stories):
    story, person = stories["email_only_headphones"], Person(method="store_credit")
    database = Database(app)
    async with connector(person) as client:
        # The customer knows only their email and says "the headphones".
        found = await call(client, "after_sales_find_orders", {"email": story["email"]})
        assert database.changed() == {}
        [order] = [o for o in found["orders"] if "Headphones" in o["items"]]
        assert (order["order_id"], order["customer_id"]) == (story["order_id"], story["customer_id"])

        shown = await call(client, "after_sales_get_order", {"order_id": order["order_id"]})
        assert database.changed() == {}
        [line] = shown["lines"]
        options = {o["kind"]: o["possible"] for o in line["options"]}
        assert options["return_and_refund"] and line["units_available"] == 1 and line["open_ticket_id"] is None

        ask = {"order_id": order["order_id"], "line_no": line["line_no"], "quantity": 1, "reason_code": "defective"}
        quote = await call(client, "after_sales_estimate_refund", ask)
        estimated = database.changed()
        assert list(estimated) == ["quotes"] and not (estimated["quotes"].removed or estimated["quotes"].changed)
        [(quote_key, quote_row)] = estimated["quotes"].added.items()
        assert quote_key == (quote["quote_id"],) and quote_row["owner"] == "support-bot"
        assert (quote_row["order_id"], quote_row["line_no"], quote_row["total_minor"]) == (
            order["order_id"],
            line["line_no"],
            quote["total"],
        )

        create = ask | {
            "kind": "return_and_refund",
            "description": "The left ear cup crackles and then goes silent.",
            "quote_id": quote["quote_id"],
            "idempotency_key": CREATE_KEY,
        }
        created = await call(client, "after_sales_create_ticket", create)
        ticket = created["ticket"]
        assert created["outcome"] == "created" and person.questions[0] == "refund_method"
        opened = database.changed()
        assert set(opened) == {"tickets", "ticket_events", "idempotency_records", "ticket_sequences"}
        [(ticket_key, ticket_row)] = opened["tickets"].added.items()
        assert ticket_key == (ticket["ticket_id"],) and not opened["tickets"].changed
        assert (ticket_row["customer_id"], ticket_row["order_id"], ticket_row["line_no"]) == (
            story["customer_id"],
            order["order_id"],
            line["line_no"],
        )
        assert (ticket_row["refund_method"], ticket_row["refund_total_minor"]) == ("store_credit", quote["total"])
        assert ticket_row["status"] == ticket["status"] and ticket_row["created_by"] == "support-bot"
        events = opened["ticket_events"].added.values()
        assert {e["ticket_id"] for e in events} == {ticket["ticket_id"]} and len(events) == ticket["timeline_total"]
        [record] = opened["idempotency_records"].added.values()
        assert (record["tool"], record["key"], record["ticket_id"]) == (
            "after_sales_create_ticket",
            CREATE_KEY,
            ticket["ticket_id"],
        )
        assert units_held(database.tickets_of_line(order["order_id"], line["line_no"])) == 1

        listed = await call(client, "after_sales_list_tickets", {"customer_id": order["customer_id"]})
        assert database.changed() == {}
        assert listed["tickets"][0]["ticket_id"] == ticket["ticket_id"] and listed["tickets"][0]["stage"] != "closed"

        withdraw = {"ticket_id": ticket["ticket_id"], "reason": WORDS, "idempotency_key": CANCEL_KEY}
        cancelled = await call(client, "after_sales_cancel_ticket", withdraw)
        assert cancelled["outcome"] == "cancelled" and person.questions[-1] == "confirm"
        withdrawn = database.changed()
        assert set(withdrawn) == {"tickets", "ticket_events", "idempotency_records"}
        assert withdrawn["tickets"].changed[ticket_key]["status"] == "cancelled"
        assert list(withdrawn["tickets"].changed) == [ticket_key] and not withdrawn["tickets"].added
        closing = sorted(withdrawn["ticket_events"].added.values(), key=lambda e: e["id"])
        assert {e["ticket_id"] for e in closing} == {ticket["ticket_id"]} and len(closing) == 2
        assert (closing[-1]["type"], closing[-1]["actor"]) == ("cancelled", "support-bot") and WORDS in closing[-1][
            "note"
        ]
        [record] = withdrawn["idempotency_records"].added.values()
        assert (record["tool"], record["key"], record["ticket_id"]) == (
            "after_sales_cancel_ticket",
            CANCEL_KEY,
            ticket["ticket_id"],
        )
        assert units_held(database.tickets_of_line(order["order_id"], line["line_no"])) == 0

        freed = await call(client, "after_sales_get_order", {"order_id": order["order_id"]})
    assert database.changed() == {}
    assert freed["lines"][0]["units_available"] == 1 and freed["lines"][0]["open_ticket_id"] is None

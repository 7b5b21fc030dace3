"""Listing tickets through the services on a fake unit of work."""

import pytest

from aftersales.clock import as_utc, iso, now
from aftersales.domain.errors import InvalidArguments, NotFound
from aftersales.security.cursors import SignedCursors
from aftersales.services.creation import Decisions, create_ticket
from aftersales.services.ticket_queries import list_tickets
from tests.support.creation import ALICE, POLICY, ticket_request
from tests.support.fakes import FakeUnitOfWork

CURSORS = SignedCursors(["the server secret of these tests"])


def tickets(database, customer_id=None, order_id=None, limit=10, cursor=None):
    return list_tickets(FakeUnitOfWork(database), customer_id, order_id, limit, cursor, CURSORS)


def test_a_customers_tickets_are_listed_newest_first_as_query_ticket_summarises_them(database, stories):
    story = stories["email_only_headphones"]
    created = create_ticket(
        FakeUnitOfWork(database), ALICE, ticket_request(story["order_id"]), Decisions(), now(), POLICY
    )
    page = tickets(database, customer_id=story["customer_id"])
    assert page.tickets[0].ticket_id == created.ticket.ticket_id
    assert {t.ticket_id for t in page.tickets[1:]} == {
        stories["email_only_return_under_review"]["ticket_id"],
        stories["email_only_drone_in_repair"]["ticket_id"],
    }
    first = created.ticket.model_dump(exclude={"timeline", "timeline_total"})
    assert page.tickets[0].model_dump() == first
    assert {t.stage for t in page.tickets[1:]} == {"review", "repair"}
    created_at = [
        as_utc(t["created_at"]) for t in database.tables.rows["tickets"] if t["customer_id"] == story["customer_id"]
    ]
    assert [t.created_at for t in page.tickets] == [iso(at) for at in sorted(created_at, reverse=True)]


def test_an_orders_tickets_page_one_at_a_time(database, baseline):
    busy = max(
        {t["order_id"] for t in baseline.tables["tickets"]},
        key=lambda o: sum(t["order_id"] == o for t in baseline.tables["tickets"]),
    )
    expected = sorted(
        (t for t in baseline.tables["tickets"] if t["order_id"] == busy),
        key=lambda t: (t["created_at"], t["id"]),
        reverse=True,
    )
    seen, cursor = [], None
    while True:
        page = tickets(database, order_id=busy, limit=1, cursor=cursor)
        seen += [t.ticket_id for t in page.tickets]
        if not (cursor := page.next_cursor):
            break
    assert seen == [t["id"] for t in expected] and len(seen) >= 2


def test_no_tickets_is_an_empty_page_for_any_customer_id_but_an_unknown_order_is_not_found(database, stories):
    for customer in (stories["vip_laptop_recent"]["customer_id"], "C-99999"):
        page = tickets(database, customer_id=customer)
        assert (page.tickets, page.next_cursor) == ([], None)
        assert page.next_step.startswith(f"No tickets were found for customer {customer}.")
    assert tickets(database, order_id=stories["vip_laptop_recent"]["order_id"]).tickets == []
    with pytest.raises(NotFound, match='No order numbered "O-2026-999999" exists'):
        tickets(database, order_id="O-2026-999999")
    with pytest.raises(InvalidArguments, match="at once"):
        tickets(database, customer_id="C-00001", order_id="O-2026-999999")

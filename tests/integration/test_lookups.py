"""The lookups on a real database: the queries' scoping, keyset pages to the microsecond, one line-facts statement."""

from datetime import timedelta

import pytest
from sqlalchemy import select, update

from aftersales.clock import as_utc, now
from aftersales.domain.enums import TicketKind
from aftersales.domain.errors import NotFound
from aftersales.domain.lookups import CustomerKey, TicketScope
from aftersales.security.cursors import SignedCursors
from aftersales.services.creation import Decisions
from aftersales.services.orders import find_orders, get_order
from aftersales.services.ticket_queries import list_tickets
from aftersales.storage.models import Customer, Order, Ticket
from aftersales.storage.repositories import LINE_FACTS_SQL, ORDER_LINE_FACTS_SQL
from tests.support.creation import create, ticket_request

CURSORS = SignedCursors(["the server secret of these tests"])


def every_page(fetch) -> list[str]:
    """Ids from every page of a listing, following next_cursor to the end."""
    seen, cursor = [], None
    while True:
        page = fetch(cursor)
        rows = page.orders if hasattr(page, "orders") else page.tickets
        seen += [row.order_id if hasattr(page, "orders") else row.ticket_id for row in rows]
        if not (cursor := page.next_cursor):
            return seen


def test_an_orders_line_facts_are_the_one_line_statement_without_its_line_filter(app, baseline):
    assert ORDER_LINE_FACTS_SQL.count("{p}") == LINE_FACTS_SQL.count("{p}") - 1
    counts: dict[str, int] = {}
    for line in baseline.tables["order_lines"]:
        counts[line["order_id"]] = counts.get(line["order_id"], 0) + 1
    several = [order for order, n in counts.items() if n >= 2][:40]
    with app.uow() as uow:
        for order_id in several:
            every = uow.orders.order_line_facts(order_id)
            assert every == [uow.orders.line_facts(order_id, n) for n in range(1, counts[order_id] + 1)], order_id
        assert uow.orders.order_line_facts("O-2026-999999") == []


def test_a_customers_orders_page_newest_first_to_the_end_by_each_key(app, baseline, stories):
    customer = max(
        {o["customer_id"] for o in baseline.tables["orders"]},
        key=lambda c: sum(o["customer_id"] == c for o in baseline.tables["orders"]),
    )
    mine = sorted(
        (o for o in baseline.tables["orders"] if o["customer_id"] == customer), key=lambda o: (o["placed_at"], o["id"])
    )
    expected = [o["id"] for o in reversed(mine)]
    contact = next(c for c in baseline.tables["customers"] if c["id"] == customer)
    national = contact["phone"].removeprefix("+86 ")
    for key in ({"customer_id": customer}, {"email": contact["email"].title()}, {"phone": f"86-{national}"}):
        arguments = {"email": None, "phone": None, "customer_id": None} | key
        seen = every_page(
            lambda cursor, a=arguments: find_orders(app.uow(), **a, limit=3, cursor=cursor, cursors=CURSORS)
        )
        assert seen == expected and len(seen) > 6, key


def test_a_phone_two_accounts_share_finds_both_and_another_customer_none(app, stories):
    first, second = stories["same_product_recent"], stories["email_only_headphones"]
    with app.uow() as uow:
        uow.session.execute(update(Customer).where(Customer.id == second["customer_id"]).values(phone=first["phone"]))
        uow.commit()
    with app.uow() as uow:
        rows = uow.listings.orders_of(CustomerKey("phone", first["phone"], first["phone"]), None, 50)
    assert {row.customer_id for row in rows} == {first["customer_id"], second["customer_id"]} and len(rows) == 5


def test_orders_placed_at_one_moment_page_by_number_without_a_gap_or_a_repeat(app, stories):
    customer = stories["vip_laptop_recent"]["customer_id"]
    moment = now().replace(microsecond=654321) - timedelta(days=1)
    with app.uow() as uow:
        uow.session.execute(update(Order).where(Order.customer_id == customer).values(placed_at=moment))
        uow.commit()
        ids = sorted(uow.session.scalars(select(Order.id).where(Order.customer_id == customer)), reverse=True)
    seen = every_page(lambda cursor: find_orders(app.uow(), None, None, customer, 1, cursor, CURSORS))
    assert seen == ids and len(ids) >= 3


def test_tickets_created_in_one_microsecond_page_by_number_and_the_newest_comes_first(app, stories):
    customer = stories["email_only_headphones"]["customer_id"]
    at = now().replace(microsecond=123456)
    exchange = {"kind": TicketKind.EXCHANGE, "refund_method": None}
    made = [
        create(app, ticket_request(stories[key]["order_id"], **exchange), decisions=Decisions(), at=at).ticket.ticket_id
        for key in ("email_only_headphones", "same_product_recent")
    ]
    with app.uow() as uow:
        uow.session.execute(update(Ticket).where(Ticket.id == made[1]).values(customer_id=customer))
        uow.commit()
        stored = {
            t.id: as_utc(t.created_at)
            for t in uow.session.scalars(select(Ticket).where(Ticket.customer_id == customer))
        }
    assert stored[made[0]] == at  # the microseconds survive the round trip on both databases
    seen = every_page(lambda cursor: list_tickets(app.uow(), customer, None, 1, cursor, CURSORS))
    assert seen[:2] == sorted(made, reverse=True)
    assert seen == sorted(stored, key=lambda ticket: (stored[ticket], ticket), reverse=True)


def test_a_ticket_listing_shows_only_its_scope(app, stories):
    story = stories["ticket_awaiting_return"]
    with app.uow() as uow:
        by_order = uow.listings.tickets_of(TicketScope("order_id", story["order_id"]), None, 50)
        by_customer = uow.listings.tickets_of(TicketScope("customer_id", story["customer_id"]), None, 50)
    assert {t.order_id for t in by_order} == {story["order_id"]} and story["ticket_id"] in {t.id for t in by_order}
    with app.uow() as uow:
        owners = {uow.session.get(Ticket, t.id).customer_id for t in by_customer}
    assert owners == {story["customer_id"]}


def test_an_order_shows_what_a_ticket_already_holds_and_an_unknown_one_is_not_found(app, stories):
    order_id = stories["headphones_in_window_qty3"]["order_id"]
    create(app, ticket_request(order_id, quantity=2, kind=TicketKind.RETURN_AND_REFUND))
    [line] = get_order(app.uow(), order_id, now()).lines
    assert (line.quantity, line.units_held, line.units_available) == (3, 2, 1)
    with pytest.raises(NotFound, match='No order numbered "O-2026-999999"'):
        get_order(app.uow(), "O-2026-999999", now())

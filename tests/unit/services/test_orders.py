"""Finding orders and what each line allows, through the services on a fake unit of work."""

import pytest

from aftersales.clock import iso, now
from aftersales.domain.eligibility import ticket_options
from aftersales.domain.enums import TicketKind
from aftersales.domain.errors import InvalidArguments, NotFound
from aftersales.domain.paging import Listing, Position
from aftersales.domain.rule_codes import RuleCode
from aftersales.security.cursors import SignedCursors
from aftersales.services.creation import Decisions, create_ticket
from aftersales.services.lines import order_lines
from aftersales.services.orders import find_orders, get_order, why_not
from tests.support.creation import ALICE, POLICY, ticket_request
from tests.support.fakes import FakeUnitOfWork

KINDS = [kind.value for kind in TicketKind]


CURSORS = SignedCursors(["the server secret of these tests"])


def find(database, email=None, phone=None, customer_id=None, limit=10, cursor=None):
    return find_orders(FakeUnitOfWork(database), email, phone, customer_id, limit, cursor, CURSORS)


def orders_of(database, customer_id: str) -> list[dict]:
    """The customer's orders from the rows, newest first, as the listing must give them."""
    rows = [o for o in database.tables.rows["orders"] if o["customer_id"] == customer_id]
    return sorted(rows, key=lambda o: (o["placed_at"], o["id"]), reverse=True)


def test_an_email_finds_the_customers_orders_newest_first_with_their_items(database, stories):
    story = stories["email_only_headphones"]
    page = find(database, email=story["email"].upper())
    assert [o.order_id for o in page.orders] == [o["id"] for o in orders_of(database, story["customer_id"])]
    assert page.orders[0].order_id == story["order_id"] and page.next_cursor is None
    assert page.orders[0].items == "line 1: Sony WH-1000XM5 Headphones x1"
    assert {o.customer_id for o in page.orders} == {story["customer_id"]}
    assert "call after_sales_get_order" in page.next_step


def test_a_phone_said_another_way_and_the_customer_id_find_the_same_orders(database, stories):
    story = stories["same_product_recent"]
    national = story["phone"].removeprefix("+86 ")
    spoken = f"{national[:3]}-{national[3:7]}-{national[7:]}"
    by_phone, by_id = find(database, phone=spoken), find(database, customer_id=story["customer_id"])
    assert by_phone.orders == by_id.orders
    assert [o.order_id for o in by_id.orders] == [
        stories["same_product_recent"]["order_id"],
        stories["same_product_older"]["order_id"],
    ]


def test_a_phone_two_accounts_share_lists_the_orders_of_both(database, stories):
    first, second = stories["same_product_recent"], stories["all_units_refunded"]
    next(c for c in database.tables.rows["customers"] if c["id"] == second["customer_id"])["phone"] = first["phone"]
    page = find(database, phone=first["phone"])
    assert {o.customer_id for o in page.orders} == {first["customer_id"], second["customer_id"]}
    assert [o.placed_at for o in page.orders] == sorted((o.placed_at for o in page.orders), reverse=True)


def test_pages_of_one_order_follow_each_other_to_the_last_without_gaps_or_repeats(database, stories):
    customer = stories["vip_laptop_recent"]["customer_id"]
    seen, cursor = [], None
    while True:
        page = find(database, customer_id=customer, limit=1, cursor=cursor)
        seen += [o.order_id for o in page.orders]
        if page.next_cursor is None:
            break
        assert "Older orders follow" in page.next_step
        cursor = page.next_cursor
    assert seen == [o["id"] for o in orders_of(database, customer)] and len(seen) >= 3


def test_orders_placed_at_the_same_moment_are_paged_by_number_without_losing_one(database, stories):
    customer = stories["vip_laptop_recent"]["customer_id"]
    rows = orders_of(database, customer)
    for row in rows:
        row["placed_at"] = rows[0]["placed_at"]
    pages = [find(database, customer_id=customer, limit=2)]
    while pages[-1].next_cursor:
        pages.append(find(database, customer_id=customer, limit=2, cursor=pages[-1].next_cursor))
    assert [o.order_id for page in pages for o in page.orders] == sorted((r["id"] for r in rows), reverse=True)


def test_an_unknown_email_and_a_customer_without_orders_answer_alike(database, baseline):
    with_orders = {o["customer_id"] for o in baseline.tables["orders"]}
    idle = next(c for c in baseline.tables["customers"] if c["id"] not in with_orders)
    answers = []
    for email in (idle["email"], "nobody.at.all@example.com"):
        with pytest.raises(NotFound) as raised:
            find(database, email=email)
        answers.append(str(raised.value).replace(email, "<email>"))
    assert answers[0] == answers[1]
    assert "the same whether no account uses the value or the account has no orders" in answers[0]
    assert "Ask the customer for another email address or mobile number" in answers[0]
    with pytest.raises(NotFound, match='No orders were found for customer id "C-99999"'):
        find(database, customer_id="C-99999")


def test_a_cursor_of_another_customer_or_a_made_up_one_is_refused(database, stories):
    page = find(database, customer_id=stories["vip_laptop_recent"]["customer_id"], limit=1)
    with pytest.raises(InvalidArguments, match="belongs to another search"):
        find(database, customer_id=stories["headphones_in_window_qty3"]["customer_id"], cursor=page.next_cursor)
    with pytest.raises(InvalidArguments, match="belongs to another search"):
        find(database, email=stories["vip_laptop_recent"]["email"], cursor=page.next_cursor)
    with pytest.raises(InvalidArguments, match="is not a cursor this server issued"):
        find(database, customer_id=stories["vip_laptop_recent"]["customer_id"], cursor="bm90LWEtY3Vyc29yLWF0LWFsbA")


def test_a_cursor_past_the_last_order_gives_an_empty_page_not_an_error(database, stories):
    customer = stories["vip_laptop_recent"]["customer_id"]
    oldest = orders_of(database, customer)[-1]
    listing = Listing("after_sales_find_orders", f"customer_id:{customer}")
    page = find(
        database, customer_id=customer, cursor=CURSORS.write(listing, Position(oldest["placed_at"], oldest["id"]))
    )
    assert page.orders == [] and page.next_cursor is None and "earlier pages held every order" in page.next_step


def test_an_order_shows_every_line_with_the_verdict_of_the_rules_on_each_kind(database, stories):
    order_id = stories["laptop_past_window_in_warranty"]["order_id"]
    at = now()
    view = get_order(FakeUnitOfWork(database), order_id, at)
    with FakeUnitOfWork(database) as uow:
        [line] = order_lines(uow, order_id)
    [shown] = view.lines
    expected = ticket_options(line, at)
    assert [o.kind for o in shown.options] == KINDS
    for option in shown.options:
        refusal = expected[option.kind]
        assert (option.possible, option.why_not) == (refusal is None, None if refusal is None else why_not(refusal))
        assert option.why_not_code == (None if refusal is None else refusal.code)
    assert [o.kind for o in shown.options if o.possible] == ["repair"]
    assert shown.return_window_ends == iso(line.window_closes) and shown.warranty_ends == iso(line.warranty_ends)
    assert (view.as_of, view.refund_methods_allowed) == (iso(at), ["original_payment", "store_credit"])


def test_every_kind_is_open_on_a_fresh_line_and_none_on_a_line_refunded_in_full(database, stories):
    fresh = get_order(FakeUnitOfWork(database), stories["email_only_headphones"]["order_id"], now()).lines[0]
    assert all(o.possible for o in fresh.options) and (fresh.units_available, fresh.units_held) == (1, 0)
    spent = get_order(FakeUnitOfWork(database), stories["all_units_refunded"]["order_id"], now()).lines[0]
    assert (spent.units_available, spent.units_held, spent.open_ticket_id) == (0, 1, None)
    assert {o.why_not_code for o in spent.options} == {RuleCode.QUANTITY_NOT_AVAILABLE}


def test_a_line_with_an_open_ticket_names_it_and_the_order_says_nothing_can_be_opened(database, stories):
    story = stories["email_only_return_under_review"]
    view = get_order(FakeUnitOfWork(database), story["order_id"], now())
    assert view.lines[0].open_ticket_id == story["ticket_id"]
    assert all(story["ticket_id"] in o.why_not for o in view.lines[0].options)
    assert view.next_step.startswith("No ticket can be opened on this order now")


def test_a_ticket_just_created_changes_what_the_line_allows_at_once(database, stories):
    order_id = stories["email_only_headphones"]["order_id"]
    created = create_ticket(FakeUnitOfWork(database), ALICE, ticket_request(order_id), Decisions(), now(), POLICY)
    line = get_order(FakeUnitOfWork(database), order_id, now()).lines[0]
    assert line.open_ticket_id == created.ticket.ticket_id and not any(o.possible for o in line.options)


def test_an_unknown_order_is_not_found(database):
    with pytest.raises(NotFound, match='No order numbered "O-2026-999999" exists'):
        get_order(FakeUnitOfWork(database), "O-2026-999999", now())

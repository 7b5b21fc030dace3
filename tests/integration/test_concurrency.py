"""Concurrent creates and estimates on a real database: one ticket per key and per line, consecutive numbers,
never more units than bought."""

import random
import threading
from datetime import timedelta

from sqlalchemy import func, select

from aftersales.clock import as_utc, now
from aftersales.domain.enums import ReasonCode, RefundMethod, TicketKind
from aftersales.domain.errors import AfterSalesError, RuleViolation
from aftersales.domain.rule_codes import RuleCode
from aftersales.services import creation
from aftersales.services.quotes import estimate_refund
from aftersales.storage.models import Order, Ticket
from tests.support.clients import ALICE
from tests.support.creation import CONFIRMED, POLICY, create, ticket_request
from tests.support.database import count_rows
from tests.support.refusals import refused_by
from tests.support.threads import run_concurrently

CALLS = 50


def repairable_lines(app, count: int) -> list[tuple[str, int]]:
    """(order, line) pairs inside their warranty with no ticket yet."""
    found = []
    with app.uow() as uow:
        for order in uow.session.scalars(select(Order).where(Order.status == "delivered").order_by(Order.id.desc())):
            for line in order.lines:
                product, age = line.product, now() - as_utc(order.delivered_at)
                in_warranty = age < timedelta(days=30 * product.warranty_months - 2)
                if (
                    product.repairable
                    and in_warranty
                    and uow.orders.line_facts(order.id, line.line_no).committed_quantity == 0
                ):
                    found.append((order.id, line.line_no))
            if len(found) >= count:
                return found[:count]
    raise AssertionError(f"only {len(found)} repairable lines")


def test_fifty_concurrent_creates_with_one_key_give_one_ticket_and_replay_it_to_the_rest(app, stories):
    req = ticket_request(stories["cheap_tshirts_in_window"]["order_id"], refund_method=RefundMethod.STORE_CREDIT)
    before = count_rows(app.engine)
    results = run_concurrently(CALLS, lambda _: create(app, req))
    assert not [r for r in results if isinstance(r, Exception)], results
    assert len({r.ticket.ticket_id for r in results}) == 1
    assert sorted(r.outcome for r in results) == ["created"] + ["replayed"] * (CALLS - 1)
    assert count_rows(app.engine) == before + 1


def test_retries_with_fresh_keys_for_one_line_still_create_one_ticket(app, stories):
    order_id = stories["cheap_tshirts_in_window"]["order_id"]
    results = run_concurrently(8, lambda _: create(app, ticket_request(order_id)))
    created = [r for r in results if not isinstance(r, Exception)]
    refused = [r for r in results if isinstance(r, RuleViolation)]
    assert len(created) == 1 and len(refused) == 7
    assert all(error.code is RuleCode.LINE_HAS_OPEN_TICKET for error in refused)
    assert all(created[0].ticket.ticket_id in error.what for error in refused)  # the ticket that won is named


def test_fifty_concurrent_creates_on_fifty_lines_get_unique_consecutive_numbers(app):
    lines = repairable_lines(app, CALLS)

    def open_repair(index: int):
        order_id, line_no = lines[index]
        return create(app, ticket_request(order_id, line_no=line_no, kind=TicketKind.REPAIR, refund_method=None))

    results = run_concurrently(CALLS, open_repair)
    assert not [r for r in results if isinstance(r, Exception)], [r for r in results if isinstance(r, Exception)]
    numbers = sorted(int(r.ticket.ticket_id.rsplit("-", 1)[1]) for r in results)
    assert numbers == list(range(numbers[0], numbers[0] + CALLS))


def test_concurrent_estimates_and_creates_never_cover_more_units_than_were_bought(app, stories):
    order_id = stories["headphones_in_window_qty3"]["order_id"]
    chooser = random.Random(7)
    plan = [(chooser.choice(["estimate", "create"]), chooser.randint(1, 3)) for _ in range(CALLS)]

    def act(index: int):
        action, quantity = plan[index]
        if action == "estimate":
            return estimate_refund(
                app.uow(write=True), ALICE, order_id, 1, quantity, ReasonCode.DAMAGED, now(), POLICY.quote_ttl
            )
        return create(app, ticket_request(order_id, quantity=quantity))

    results = run_concurrently(CALLS, act)
    unexpected = [r for r in results if isinstance(r, Exception) and not isinstance(r, AfterSalesError)]
    assert not unexpected, unexpected
    with app.uow() as uow:
        held = uow.session.scalar(
            select(func.coalesce(func.sum(Ticket.quantity), 0)).where(
                Ticket.order_id == order_id, Ticket.status.not_in(["rejected", "cancelled"])
            )
        )
    assert 1 <= held <= 3


def number_of(result) -> int:
    """The sequence number of a created ticket (T-YYYY-NNNN)."""
    return int(result.ticket.ticket_id.rsplit("-", 1)[1])


def test_creates_that_lose_their_line_to_another_leave_no_gap_in_the_numbers(app, stories):
    order_id = stories["cheap_tshirts_in_window"]["order_id"]
    results = run_concurrently(8, lambda _: create(app, ticket_request(order_id)))
    [winner] = [r for r in results if not isinstance(r, Exception)]
    order_id, line_no = repairable_lines(app, 1)[0]
    after = create(app, ticket_request(order_id, line_no=line_no, kind=TicketKind.REPAIR, refund_method=None))
    assert number_of(after) == number_of(winner) + 1


def test_a_create_whose_checked_line_was_taken_meanwhile_is_refused_and_burns_no_number(app, stories):
    # Deterministic draw-then-fail: the rules were checked before another create took the line, so this one reaches
    # the write with a stale check, meets the open-ticket constraint and must roll back the number it drew.
    order_id = stories["cheap_tshirts_in_window"]["order_id"]
    stale = ticket_request(order_id)
    checked = creation.preflight(app.uow(), ALICE, stale, now(), POLICY)
    winner = create(app, ticket_request(order_id))
    with refused_by(RuleCode.LINE_HAS_OPEN_TICKET):
        creation.create_ticket(app.uow(write=True), ALICE, stale, CONFIRMED, now(), POLICY, checked)
    order_id, line_no = repairable_lines(app, 1)[0]
    after = create(app, ticket_request(order_id, line_no=line_no, kind=TicketKind.REPAIR, refund_method=None))
    assert number_of(after) == number_of(winner) + 1


def test_a_create_on_another_line_commits_while_the_first_is_still_writing_on_postgresql(app, backend, monkeypatch):
    (slow_order, slow_line), (quick_order, quick_line) = repairable_lines(app, 2)
    writing, release = threading.Event(), threading.Event()
    first_events = creation._first_events

    def slow_first_events(*args):
        if threading.current_thread().name == "slow":
            writing.set()
            release.wait(10)
        return first_events(*args)

    monkeypatch.setattr(creation, "_first_events", slow_first_events)
    results = {}

    def open_repair(order_id: str, line_no: int) -> None:
        request = ticket_request(order_id, line_no=line_no, kind=TicketKind.REPAIR, refund_method=None)
        results[threading.current_thread().name] = create(app, request)

    slow = threading.Thread(target=open_repair, args=(slow_order, slow_line), name="slow")
    quick = threading.Thread(target=open_repair, args=(quick_order, quick_line), name="quick")
    slow.start()
    assert writing.wait(10)
    quick.start()
    quick.join(5 if backend == "postgresql" else 0.3)
    finished_first = not quick.is_alive()
    release.set()
    slow.join(10)
    quick.join(10)
    if backend == "postgresql":
        # The first holds its transaction open with its rows prepared; the ticket counter is not locked until its
        # last statement, so the second draws the next number and commits meanwhile.
        assert finished_first
        assert number_of(results["slow"]) == number_of(results["quick"]) + 1
    else:
        assert not finished_first  # SQLite admits one writer: the second queues on the process's write lock
        assert number_of(results["quick"]) == number_of(results["slow"]) + 1

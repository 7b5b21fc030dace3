"""Opening tickets through the service layer on a real database: rules, idempotency, concurrency."""

import threading
from datetime import timedelta

import pytest
from freezegun import freeze_time
from sqlalchemy import func, select

from aftersales.clock import as_utc, now
from aftersales.domain.callers import ALL_SCOPES, Caller
from aftersales.domain.creation import TicketRequest
from aftersales.domain.enums import ReasonCode, RefundMethod, TicketKind
from aftersales.domain.errors import HandleExpired, NotFound, RuleViolation
from aftersales.services.creation import CreationPolicy, Decisions, create_ticket, preflight
from aftersales.services.quotes import estimate_refund
from aftersales.storage.models import Order, Ticket

POLICY = CreationPolicy(
    quote_ttl=timedelta(minutes=30),
    idempotency_ttl=timedelta(hours=24),
    confirm_above_minor=50000,
    review_above_minor=300000,
    review_recent_tickets=3,
    review_window=timedelta(days=30),
)
ALICE = Caller("alice-bot", frozenset(ALL_SCOPES))
BOB = Caller("bob-bot", frozenset(ALL_SCOPES))
_keys = iter(range(10**6))


def request(order_id: str, **changes) -> TicketRequest:
    values = dict(
        order_id=order_id,
        line_no=1,
        quantity=1,
        kind=TicketKind.RETURN_AND_REFUND,
        reason=ReasonCode.DEFECTIVE,
        description="It stopped working after two days.",
        refund_method=RefundMethod.ORIGINAL_PAYMENT,
        quote_id=None,
        idempotency_key=f"key-{next(_keys):08d}",
    )
    return TicketRequest(**(values | changes))


CONFIRMED = Decisions(confirmation="person")


def create(app, req: TicketRequest, caller=ALICE, decisions=CONFIRMED, at=None):
    return create_ticket(app.uow(write=True), caller, req, decisions, at or now(), POLICY)


def ticket_count(app) -> int:
    with app.uow() as uow:
        return uow.session.scalar(select(func.count()).select_from(Ticket))


def test_a_small_refund_in_the_window_is_created_approved_with_its_timeline(app, stories):
    result = create(app, request(stories["cheap_tshirts_in_window"]["order_id"], reason=ReasonCode.WRONG_ITEM))
    ticket = result.ticket
    assert result.outcome == "created"
    assert (ticket.status, ticket.stage, ticket.refund.amount) == ("approved", "awaiting_return", 10900)
    assert [e.event for e in ticket.timeline] == ["created", "note", "approved"]
    assert ticket.ticket_id in result.next_step


def test_a_refund_above_the_review_threshold_starts_under_review(app, stories):
    result = create(app, request(stories["vip_laptop_recent"]["order_id"]))
    assert (result.ticket.status, result.ticket.stage) == ("under_review", "review")


def test_a_customer_with_three_recent_tickets_goes_to_review_even_for_a_small_refund(app, stories):
    customer = stories["cheap_tshirts_in_window"]["customer_id"]
    with app.uow() as uow:
        for ticket in uow.session.scalars(select(Ticket).limit(3)):
            ticket.customer_id, ticket.created_at = customer, now() - timedelta(days=2)
        uow.commit()
    result = create(app, request(stories["cheap_tshirts_in_window"]["order_id"]))
    assert result.ticket.status == "under_review"


def test_a_refund_after_the_window_is_refused_but_a_warranty_repair_is_created(app, stories):
    order_id = stories["laptop_past_window_in_warranty"]["order_id"]
    with pytest.raises(RuleViolation, match="warranty repair is still possible"):
        create(app, request(order_id))
    repair = create(app, request(order_id, kind=TicketKind.REPAIR, refund_method=None), decisions=Decisions())
    assert repair.ticket.kind == "repair" and repair.ticket.refund is None


def test_a_repair_after_the_warranty_is_refused(app, stories):
    with pytest.raises(RuleViolation, match="warranty of .* ended on"):
        create(app, request(stories["rc_car_out_of_warranty"]["order_id"], kind=TicketKind.REPAIR, refund_method=None))


def test_an_exchange_with_a_refund_method_is_refused(app, stories):
    with pytest.raises(RuleViolation, match="Call again without refund_method"):
        create(app, request(stories["headphones_in_window_qty3"]["order_id"], kind=TicketKind.EXCHANGE))


def test_a_refund_without_a_method_is_refused_when_nobody_could_choose_one(app, stories):
    with pytest.raises(RuleViolation, match="Ask the customer whether they want original_payment or store_credit"):
        create(app, request(stories["cheap_tshirts_in_window"]["order_id"], refund_method=None))


def test_more_units_than_bought_are_refused(app, stories):
    with pytest.raises(RuleViolation, match="Quantity 4 is more than the 3 unit"):
        create(app, request(stories["headphones_in_window_qty3"]["order_id"], quantity=4))


def test_a_second_ticket_for_a_line_with_an_open_one_is_refused_naming_it(app, stories):
    order_id = stories["headphones_in_window_qty3"]["order_id"]
    first = create(app, request(order_id, quantity=1))
    with pytest.raises(RuleViolation) as refused:
        create(app, request(order_id, quantity=1))
    assert first.ticket.ticket_id in str(refused.value) and "after_sales_query_ticket" in str(refused.value)


def test_a_matching_quote_locks_the_amount(app, stories):
    order_id = stories["headphones_in_window_qty3"]["order_id"]
    quote = estimate_refund(app.uow(write=True), ALICE, order_id, 1, 2, ReasonCode.OTHER, now(), POLICY.quote_ttl)
    result = create(app, request(order_id, quantity=2, reason=ReasonCode.OTHER, quote_id=quote.quote_id))
    assert result.ticket.refund.amount == quote.total == 216420


def test_a_quote_for_another_quantity_is_refused(app, stories):
    order_id = stories["headphones_in_window_qty3"]["order_id"]
    quote = estimate_refund(app.uow(write=True), ALICE, order_id, 1, 2, ReasonCode.OTHER, now(), POLICY.quote_ttl)
    with pytest.raises(RuleViolation, match="does not match this request"):
        create(app, request(order_id, quantity=1, reason=ReasonCode.OTHER, quote_id=quote.quote_id))


def test_another_callers_quote_is_unknown_and_an_expired_one_says_to_estimate_again(app, stories):
    order_id = stories["vip_laptop_recent"]["order_id"]
    with freeze_time("2026-12-01 14:02:00"):
        start = now()
        quote = estimate_refund(
            app.uow(write=True), ALICE, order_id, 1, 1, ReasonCode.DEFECTIVE, start, POLICY.quote_ttl
        )
    with pytest.raises(NotFound, match="is available to you"):
        create(app, request(order_id, quote_id=quote.quote_id), caller=BOB, at=start + timedelta(minutes=1))
    with pytest.raises(HandleExpired, match="expired at 14:32 UTC.*Call after_sales_estimate_refund again"):
        create(app, request(order_id, quote_id=quote.quote_id), at=start + timedelta(minutes=30))


def test_the_same_key_and_arguments_replay_the_first_result_without_a_new_ticket(app, stories):
    req = request(stories["cheap_tshirts_in_window"]["order_id"])
    first = create(app, req)
    before = ticket_count(app)
    again = create(app, req)
    assert again.outcome == "replayed" and again.ticket.ticket_id == first.ticket.ticket_id
    assert ticket_count(app) == before
    assert preflight(app.uow(), ALICE, req, now(), POLICY).replay.outcome == "replayed"


def test_the_same_key_with_other_arguments_is_refused_naming_the_difference(app, stories):
    req = request(stories["cheap_tshirts_in_window"]["order_id"])
    create(app, req)
    changed = TicketRequest(**{**req.__dict__, "reason": ReasonCode.DAMAGED, "description": "Other words here"})
    with pytest.raises(RuleViolation, match="description: first .*; reason_code: first 'defective', now 'damaged'"):
        create(app, changed)


def test_keys_belong_to_their_caller(app, stories):
    req = request(stories["cheap_tshirts_in_window"]["order_id"])
    create(app, req)
    with pytest.raises(RuleViolation, match="already has an open ticket"):
        create(app, req, caller=BOB)  # Bob's key space is his own; the open-ticket rule still holds


def test_a_key_is_kept_24_hours_then_free_again(app, stories):
    start = now()
    req = request(stories["cheap_tshirts_in_window"]["order_id"])
    create(app, req, at=start)
    other_line = request(stories["headphones_in_window_qty3"]["order_id"], idempotency_key=req.idempotency_key)
    with pytest.raises(RuleViolation, match="already used for a different request"):
        create(app, other_line, at=start + timedelta(hours=23, minutes=59))
    assert create(app, other_line, at=start + timedelta(hours=24)).outcome == "created"


def run_concurrently(count: int, work) -> list:
    """Start `count` threads at once; return each result or exception."""
    barrier, results = threading.Barrier(count), [None] * count

    def run(index: int) -> None:
        barrier.wait()
        try:
            results[index] = work(index)
        except Exception as error:  # collected for the assertions
            results[index] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def test_twenty_concurrent_calls_with_one_key_create_exactly_one_ticket(app, stories):
    req = request(stories["cheap_tshirts_in_window"]["order_id"])
    before = ticket_count(app)
    results = run_concurrently(20, lambda _: create(app, req))
    assert not [r for r in results if isinstance(r, Exception)]
    assert len({r.ticket.ticket_id for r in results}) == 1
    assert sorted(r.outcome for r in results) == ["created"] + ["replayed"] * 19
    assert ticket_count(app) == before + 1


def test_retries_with_fresh_keys_for_one_line_still_create_one_ticket(app, stories):
    order_id = stories["cheap_tshirts_in_window"]["order_id"]
    results = run_concurrently(8, lambda _: create(app, request(order_id)))
    created = [r for r in results if not isinstance(r, Exception)]
    refused = [r for r in results if isinstance(r, RuleViolation)]
    assert len(created) == 1 and len(refused) == 7
    assert all(created[0].ticket.ticket_id in str(error) for error in refused)


def fresh_lines(app, count: int) -> list[str]:
    """Orders with a single returnable line delivered in the last few days and no ticket yet."""
    found = []
    with app.uow() as uow:
        for order in uow.session.scalars(select(Order).where(Order.status == "delivered")):
            line, age = order.lines[0], now() - as_utc(order.delivered_at)
            untouched = uow.orders.line_facts(order.id, 1).committed_quantity == 0
            if len(order.lines) == 1 and line.product.returnable and age < timedelta(days=6) and untouched:
                found.append(order.id)
    assert len(found) >= count
    return found[:count]


def test_concurrent_creates_on_different_lines_get_unique_consecutive_numbers(app):
    orders = fresh_lines(app, 10)
    results = run_concurrently(
        10,
        lambda i: create(app, request(orders[i], reason=ReasonCode.DAMAGED, refund_method=RefundMethod.STORE_CREDIT)),
    )
    assert not [r for r in results if isinstance(r, Exception)], results
    numbers = sorted(int(r.ticket.ticket_id.rsplit("-", 1)[1]) for r in results)
    assert numbers == list(range(numbers[0], numbers[0] + 10))


def test_a_completed_repair_does_not_use_up_the_units_for_a_second_repair(app, stories):
    order_id = stories["laptop_past_window_in_warranty"]["order_id"]
    first = create(app, request(order_id, kind=TicketKind.REPAIR, refund_method=None), decisions=Decisions())
    with app.uow() as uow:
        uow.session.get(Ticket, first.ticket.ticket_id).status = "completed"
        uow.commit()
    again = create(app, request(order_id, kind=TicketKind.REPAIR, refund_method=None), decisions=Decisions())
    assert again.outcome == "created"


def test_an_upper_case_quote_id_is_the_same_quote(app, stories):
    order_id = stories["cheap_tshirts_in_window"]["order_id"]
    quote = estimate_refund(app.uow(write=True), ALICE, order_id, 1, 1, ReasonCode.DEFECTIVE, now(), POLICY.quote_ttl)
    result = create(app, request(order_id, quote_id=quote.quote_id.upper()))
    assert result.ticket.refund.amount == quote.total

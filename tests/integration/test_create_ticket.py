"""Opening tickets on a real database: what only a database can show.

The rules themselves (thresholds, windows, warranties, refund methods, quantities, quote matching, the open-ticket
rule) are tested on the fake unit of work in unit/test_services.py, in milliseconds. What stays here needs the SQL:
a ticket, its events and its number written and read back, the recent tickets a customer opened, the units a
completed ticket holds, quotes found by owner and expiry and by any spelling of their id, and idempotency records
scoped by caller and kept 24 hours. The SQL of units held and of a line's open ticket, for every kind and status, is
in test_storage_rules.py; races between concurrent creates are in test_concurrency.py.
"""

import dataclasses
from datetime import timedelta

import pytest
from freezegun import freeze_time
from sqlalchemy import delete, insert, select

from aftersales.clock import now
from aftersales.domain.creation import TicketRequest
from aftersales.domain.enums import ReasonCode, TicketKind
from aftersales.domain.errors import AfterSalesError, HandleExpired, NotFound
from aftersales.domain.rule_codes import RuleCode
from aftersales.services.creation import Decisions, may_ask, preflight
from aftersales.services.quotes import estimate_refund
from aftersales.services.ticket_queries import query_ticket
from aftersales.storage.models import IdempotencyRecord, Ticket, TicketSequence
from aftersales.storage.repositories import SqlTicketRepository
from tests.support.clients import ALICE, BOB
from tests.support.creation import POLICY, create, ticket_request
from tests.support.database import count_rows
from tests.support.refusals import refused_by


def test_a_small_refund_in_the_window_is_created_approved_with_its_timeline(app, stories):
    result = create(app, ticket_request(stories["cheap_tshirts_in_window"]["order_id"], reason=ReasonCode.WRONG_ITEM))
    ticket = result.ticket
    assert result.outcome == "created"
    assert (ticket.status, ticket.stage, ticket.refund.amount) == ("approved", "awaiting_return", 10900)
    assert [e.event for e in ticket.timeline] == ["created", "note", "approved"]
    assert ticket.ticket_id in result.next_step


def test_a_customer_with_three_recent_tickets_goes_to_review_even_for_a_small_refund(app, stories):
    customer = stories["cheap_tshirts_in_window"]["customer_id"]
    with app.uow() as uow:
        for ticket in uow.session.scalars(select(Ticket).limit(3)):
            ticket.customer_id, ticket.created_at = customer, now() - timedelta(days=2)
        uow.commit()
    result = create(app, ticket_request(stories["cheap_tshirts_in_window"]["order_id"]))
    assert result.ticket.status == "under_review"


def test_another_callers_quote_is_unknown_and_an_expired_one_says_to_estimate_again(app, stories):
    order_id = stories["vip_laptop_recent"]["order_id"]
    with freeze_time("2026-12-01 14:02:00"):
        start = now()
        quote = estimate_refund(
            app.uow(write=True), ALICE, order_id, 1, 1, ReasonCode.DEFECTIVE, start, POLICY.quote_ttl
        )
    with pytest.raises(NotFound, match="is available to you"):
        create(app, ticket_request(order_id, quote_id=quote.quote_id), caller=BOB, at=start + timedelta(minutes=1))
    with pytest.raises(HandleExpired, match="expired at 14:32 UTC.*Call after_sales_estimate_refund again"):
        create(app, ticket_request(order_id, quote_id=quote.quote_id), at=start + timedelta(minutes=30))


def test_the_same_key_and_arguments_replay_the_first_result_without_a_new_ticket(app, stories):
    req = ticket_request(stories["cheap_tshirts_in_window"]["order_id"])
    first = create(app, req)
    before = count_rows(app.engine)
    again = create(app, req)
    assert again.outcome == "replayed" and again.ticket.ticket_id == first.ticket.ticket_id
    assert count_rows(app.engine) == before
    assert preflight(app.uow(), ALICE, req, now(), POLICY).replay.outcome == "replayed"


def test_the_same_key_with_other_arguments_is_refused_as_a_reused_key(app, stories):
    req = ticket_request(stories["cheap_tshirts_in_window"]["order_id"])
    create(app, req)
    changed = TicketRequest(**{**req.__dict__, "reason": ReasonCode.DAMAGED, "description": "Other words here"})
    with refused_by(RuleCode.IDEMPOTENCY_KEY_REUSED):
        create(app, changed)


def test_keys_belong_to_their_caller(app, stories):
    req = ticket_request(stories["cheap_tshirts_in_window"]["order_id"])
    create(app, req)
    with refused_by(RuleCode.LINE_HAS_OPEN_TICKET):
        create(app, req, caller=BOB)  # Bob's key space is his own; the open-ticket rule still holds


def test_a_key_is_kept_24_hours_then_free_again(app, stories):
    start = now()
    req = ticket_request(stories["cheap_tshirts_in_window"]["order_id"])
    create(app, req, at=start)
    other_line = ticket_request(stories["headphones_in_window_qty3"]["order_id"], idempotency_key=req.idempotency_key)
    with refused_by(RuleCode.IDEMPOTENCY_KEY_REUSED):
        create(app, other_line, at=start + timedelta(hours=23, minutes=59))
    assert create(app, other_line, at=start + timedelta(hours=24)).outcome == "created"


def test_a_completed_repair_does_not_use_up_the_units_for_a_second_repair(app, stories):
    order_id = stories["laptop_past_window_in_warranty"]["order_id"]
    first = create(app, ticket_request(order_id, kind=TicketKind.REPAIR, refund_method=None), decisions=Decisions())
    with app.uow() as uow:
        uow.session.get(Ticket, first.ticket.ticket_id).status = "completed"
        uow.commit()
    again = create(app, ticket_request(order_id, kind=TicketKind.REPAIR, refund_method=None), decisions=Decisions())
    assert again.outcome == "created"


def test_an_upper_case_quote_id_is_the_same_quote(app, stories):
    order_id = stories["cheap_tshirts_in_window"]["order_id"]
    quote = estimate_refund(app.uow(write=True), ALICE, order_id, 1, 1, ReasonCode.DEFECTIVE, now(), POLICY.quote_ttl)
    result = create(app, ticket_request(order_id, quote_id=quote.quote_id.upper()))
    assert result.ticket.refund.amount == quote.total


def test_a_created_ticket_answers_with_the_view_a_query_reads_back_without_reading_it_back_itself(
    app, stories, monkeypatch
):
    reads: list[str] = []
    real_view = SqlTicketRepository.view
    monkeypatch.setattr(
        SqlTicketRepository, "view", lambda self, *args: reads.append(args[0]) or real_view(self, *args)
    )
    created = [
        create(app, ticket_request(stories["cheap_tshirts_in_window"]["order_id"])),  # confirmed: three events
        create(
            app,
            ticket_request(
                stories["laptop_past_window_in_warranty"]["order_id"], kind=TicketKind.REPAIR, refund_method=None
            ),
            decisions=Decisions(),
        ),
    ]
    assert reads == []
    for result in created:
        assert result.ticket is not None
        assert query_ticket(app.uow(one_statement=True), result.ticket.ticket_id) == result.ticket


def test_a_new_ticket_is_answered_as_a_query_reads_it_back_and_replayed_as_it_was_answered(app, stories):
    req = ticket_request(stories["cheap_tshirts_in_window"]["order_id"])
    first = create(app, req)
    assert first.ticket == query_ticket(app.uow(), first.ticket.ticket_id)
    again = create(app, req)
    assert again.model_dump(exclude={"outcome", "next_step"}) == first.model_dump(exclude={"outcome", "next_step"})
    with app.uow() as uow:
        record = uow.session.execute(select(IdempotencyRecord).where(IdempotencyRecord.key == req.idempotency_key))
        stored = record.scalar_one()
        assert stored.ticket_id == first.ticket.ticket_id
        assert stored.result == first.model_dump_json()


def test_the_ten_thousandth_ticket_of_a_year_is_numbered_with_five_digits(app, stories):
    year = now().year
    with app.uow(write=True) as uow:
        uow.session.execute(delete(TicketSequence).where(TicketSequence.year == year))
        uow.session.execute(insert(TicketSequence).values(year=year, last_value=9998))
        uow.commit()
    first = create(app, ticket_request(stories["cheap_tshirts_in_window"]["order_id"]))
    second = create(app, ticket_request(stories["headphones_in_window_qty3"]["order_id"]))
    assert (first.ticket.ticket_id, second.ticket.ticket_id) == (f"T-{year}-9999", f"T-{year}-10000")
    assert query_ticket(app.uow(), f"T-{year}-10000") == second.ticket


@pytest.mark.parametrize("confirm_above", [POLICY.confirm_above_minor, -1])  # -1: even a zero refund is confirmed
def test_a_request_that_may_ask_nothing_is_never_assessed_as_asking(app, stories, confirm_above):
    # The tool skips the questions' preflight when may_ask says none can come up; this holds it to the assessment.
    policy = dataclasses.replace(POLICY, confirm_above_minor=confirm_above)
    silent = 0
    for story in stories.values():
        if "order_id" not in story:
            continue
        for kind in TicketKind:
            request = ticket_request(story["order_id"], kind=kind, refund_method=None)
            try:
                assessment = preflight(app.uow(), ALICE, request, now(), policy)
            except AfterSalesError:
                continue  # refused: it asks nothing either
            asks = assessment.needs_method or assessment.needs_confirmation(policy)
            assert may_ask(request, policy) or not asks, (story["order_id"], kind)
            silent += assessment.actionable and not kind.refunds
    assert silent > 0  # actionable repairs or exchanges were assessed, under both thresholds

"""Withdrawing tickets through the service layer on a real database: rules, keys, freed units, and races."""

from datetime import timedelta

import pytest
from sqlalchemy import select

from aftersales.clock import as_utc, now
from aftersales.domain.enums import EventType, ReasonCode, TicketStatus
from aftersales.domain.errors import RuleViolation
from aftersales.domain.rule_codes import RuleCode
from aftersales.domain.tickets import TimelineEntry
from aftersales.services.cancellation import preflight
from aftersales.services.quotes import estimate_refund
from aftersales.storage.models import Ticket, TicketEvent
from tests.support.cancellation import WORDS, cancel, cancel_request
from tests.support.clients import ALICE, BOB
from tests.support.creation import POLICY, create, ticket_request
from tests.support.database import row_counts
from tests.support.refusals import refused_by
from tests.support.threads import run_concurrently

RACERS = 16  # within the connection pool (10 + 10 overflow), so every racer holds a connection at once


def stored(app, ticket_id: str) -> tuple[str, list[tuple[str, str, str]]]:
    """The ticket's status and its timeline (type, actor, note) as the database holds them."""
    with app.uow() as uow:
        status = uow.session.scalar(select(Ticket.status).where(Ticket.id == ticket_id))
        events = uow.session.execute(
            select(TicketEvent.type, TicketEvent.actor, TicketEvent.note)
            .where(TicketEvent.ticket_id == ticket_id)
            .order_by(TicketEvent.occurred_at, TicketEvent.id)
        )
        return status, [tuple(event) for event in events]


def cancellations(app, ticket_id: str) -> int:
    return [event[0] for event in stored(app, ticket_id)[1]].count("cancelled")


@pytest.mark.parametrize("story", ["ticket_awaiting_return", "ticket_under_review"])
def test_a_cancellable_ticket_is_closed_with_who_cancelled_and_why_in_one_commit(app, stories, story):
    ticket_id, at = stories[story]["ticket_id"], now()
    result = cancel(app, cancel_request(ticket_id), at=at)
    status, events = stored(app, ticket_id)
    assert result.outcome == "cancelled" and status == "cancelled"
    assert events[-2:] == [
        ("note", "customer", "The customer confirmed the cancellation in the client."),
        ("cancelled", ALICE.id, f'Cancelled by {ALICE.id} for the customer: "{WORDS}"'),
    ]
    with app.uow() as uow:
        assert as_utc(uow.session.get(Ticket, ticket_id).updated_at) == at
    assert result.ticket.updated_at == at.strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.mark.parametrize(
    ("story", "stage"),
    [("ticket_in_repair", "repair"), ("ticket_refunding", "refund"), ("ticket_refund_store_credit_done", "closed")],
)
def test_a_ticket_in_repair_refund_or_closed_is_refused_and_no_row_changes(app, stories, story, stage):
    before = row_counts(app.engine)
    status = stored(app, stories[story]["ticket_id"])
    with refused_by(RuleCode.TICKET_NOT_CANCELLABLE):
        cancel(app, cancel_request(stories[story]["ticket_id"]))
    assert row_counts(app.engine) == before and stored(app, stories[story]["ticket_id"]) == status


def test_the_same_key_replays_and_other_words_under_it_are_refused(app, stories):
    request = cancel_request(stories["ticket_awaiting_return"]["ticket_id"])
    first = cancel(app, request)
    before = row_counts(app.engine)
    again = cancel(app, request)
    assert (again.outcome, again.ticket) == ("replayed", first.ticket) and row_counts(app.engine) == before
    assert preflight(app.uow(), ALICE, request, now()).replay == again
    changed = cancel_request(request.ticket_id, reason="Changed my mind.", idempotency_key=request.idempotency_key)
    with refused_by(RuleCode.IDEMPOTENCY_KEY_REUSED):
        cancel(app, changed)
    with refused_by(RuleCode.TICKET_NOT_CANCELLABLE):
        cancel(app, request, caller=BOB)


def test_a_key_is_kept_24_hours(app, stories):
    start, request = now(), cancel_request(stories["ticket_awaiting_return"]["ticket_id"])
    cancel(app, request, at=start)
    assert cancel(app, request, at=start + timedelta(hours=23, minutes=59)).outcome == "replayed"
    with refused_by(RuleCode.TICKET_NOT_CANCELLABLE):
        cancel(app, request, at=start + timedelta(hours=24))


def test_cancelling_frees_the_lines_units_for_an_estimate_and_a_new_ticket(app, stories):
    order_id = stories["headphones_in_window_qty3"]["order_id"]
    opened = create(app, ticket_request(order_id, quantity=3))

    def estimate_all():
        return estimate_refund(app.uow(write=True), ALICE, order_id, 1, 3, ReasonCode.DAMAGED, now(), POLICY.quote_ttl)

    with refused_by(RuleCode.LINE_HAS_OPEN_TICKET):
        estimate_all()
    cancel(app, cancel_request(opened.ticket.ticket_id))
    quote = estimate_all()
    again = create(app, ticket_request(order_id, quantity=3, reason=ReasonCode.DAMAGED, quote_id=quote.quote_id))
    assert again.outcome == "created" and again.ticket.refund.amount == quote.total


def test_concurrent_cancels_with_one_key_cancel_once_and_replay_to_the_rest(app, stories):
    ticket_id = stories["ticket_awaiting_return"]["ticket_id"]
    request = cancel_request(ticket_id)
    results = run_concurrently(RACERS, lambda _: cancel(app, request))
    assert not [r for r in results if isinstance(r, Exception)], results
    assert sorted(r.outcome for r in results) == ["cancelled"] + ["replayed"] * (RACERS - 1)
    assert cancellations(app, ticket_id) == 1


def test_concurrent_cancels_with_fresh_keys_cancel_once_and_tell_the_rest_it_is_closed(app, stories):
    ticket_id = stories["ticket_under_review"]["ticket_id"]
    results = run_concurrently(RACERS, lambda _: cancel(app, cancel_request(ticket_id)))
    done = [r for r in results if not isinstance(r, Exception)]
    refused = [r for r in results if isinstance(r, RuleViolation)]
    assert len(done) == 1 and len(refused) == RACERS - 1, results
    assert all(error.code is RuleCode.TICKET_NOT_CANCELLABLE for error in refused)
    assert cancellations(app, ticket_id) == 1


def test_cancels_racing_the_workshop_starting_the_repair_end_in_one_state_with_one_matching_event(app, stories):
    ticket_id = stories["ticket_awaiting_return"]["ticket_id"]
    with app.uow(write=True) as uow:
        uow.session.get(Ticket, ticket_id).kind = "repair"  # a repair awaiting its parcel can move on to in_repair
        uow.commit()

    def start_repair() -> bool:
        with app.uow(write=True) as uow:
            started = uow.tickets.move(ticket_id, TicketStatus.AWAITING_RETURN, TicketStatus.IN_REPAIR, now())
            if started:
                entry = TimelineEntry(now(), EventType.REPAIR_STARTED.value, "workshop", "The repair started.")
                uow.tickets.record(ticket_id, [entry])
                uow.commit()
            return started

    results = run_concurrently(RACERS, lambda i: start_repair() if i % 2 else cancel(app, cancel_request(ticket_id)))
    assert all(not isinstance(r, Exception) or isinstance(r, RuleViolation) for r in results), results
    status, events = stored(app, ticket_id)
    kinds = [event[0] for event in events]
    assert status in ("cancelled", "in_repair")
    assert (kinds.count("cancelled"), kinds.count("repair_started")) == ((1, 0) if status == "cancelled" else (0, 1))

"""Withdrawing tickets through the service, on a fake unit of work: no database, milliseconds each.

Races on a real database, and the same rules on both backends, are in tests/integration/test_cancel_ticket.py.
"""

from datetime import timedelta

import pytest

from aftersales.clock import now
from aftersales.domain.enums import ReasonCode, TicketStatus
from aftersales.domain.errors import NotFound, Retryable
from aftersales.domain.rule_codes import RuleCode
from aftersales.services.cancellation import cancel_ticket, preflight
from aftersales.services.creation import create_ticket
from aftersales.services.quotes import estimate_refund
from aftersales.services.ticket_queries import query_ticket
from tests.support.cancellation import WORDS, cancel_request
from tests.support.clients import ALICE, BOB
from tests.support.creation import CONFIRMED, POLICY, ticket_request
from tests.support.fakes import FakeUnitOfWork
from tests.support.refusals import refused_by


def cancel(database, request, caller=ALICE, confirmation="person", at=None):
    return cancel_ticket(FakeUnitOfWork(database), caller, request, confirmation, at or now(), POLICY.idempotency_ttl)


def events_of(database, ticket_id: str) -> list[dict]:
    return [e for e in database.tables.rows["ticket_events"] if e["ticket_id"] == ticket_id]


@pytest.mark.parametrize("story", ["ticket_awaiting_return", "ticket_under_review"])
def test_a_ticket_in_review_or_awaiting_return_is_cancelled_with_who_and_why_in_its_timeline(database, stories, story):
    ticket_id, before = stories[story]["ticket_id"], database.commits
    result = cancel(database, cancel_request(ticket_id))
    assert (result.outcome, result.ticket.status, result.ticket.stage) == ("cancelled", "cancelled", "closed")
    assert [(e.event, e.actor) for e in result.ticket.timeline[-2:]] == [("note", "customer"), ("cancelled", ALICE.id)]
    assert result.ticket.timeline[-1].note == f'Cancelled by {ALICE.id} for the customer: "{WORDS}"'
    assert ticket_id in result.next_step and database.commits == before + 1
    assert query_ticket(FakeUnitOfWork(database), ticket_id) == result.ticket


def test_a_client_without_forms_leaves_the_confirmation_to_the_host_and_the_timeline_says_so(database, stories):
    result = cancel(database, cancel_request(stories["ticket_awaiting_return"]["ticket_id"]), confirmation="host")
    note = result.ticket.timeline[-2]
    assert (note.actor, note.note) == (
        "system",
        "Confirmation of the cancellation was left to the host application: its client cannot show confirmation forms.",
    )


@pytest.mark.parametrize(
    ("story", "stage"),
    [
        ("ticket_in_repair", "repair"),
        ("ticket_refunding", "refund"),
        ("ticket_rejected", "closed"),
        ("ticket_exchange_completed", "closed"),
    ],
)
def test_a_ticket_past_the_cancellable_stages_is_refused_and_nothing_changes(database, stories, story, stage):
    ticket_id = stories[story]["ticket_id"]
    tickets, events = [dict(t) for t in database.tables.rows["tickets"]], len(database.tables.rows["ticket_events"])
    with refused_by(RuleCode.TICKET_NOT_CANCELLABLE):
        cancel(database, cancel_request(ticket_id))
    assert database.tables.rows["tickets"] == tickets and len(database.tables.rows["ticket_events"]) == events
    assert database.tables.keys == {}


def test_an_unknown_ticket_says_what_to_ask_the_customer(database):
    with pytest.raises(NotFound, match='No ticket numbered "T-2026-9999" exists'):
        cancel(database, cancel_request("T-2026-9999"))


def test_the_same_key_and_arguments_replay_the_first_result_and_write_nothing(database, stories):
    ticket_id = stories["ticket_awaiting_return"]["ticket_id"]
    request = cancel_request(ticket_id)
    first = cancel(database, request)
    events = len(events_of(database, ticket_id))
    again = cancel(database, request)
    assert again.outcome == "replayed" and again.ticket == first.ticket
    assert "was cancelled by the first call" in again.next_step and len(events_of(database, ticket_id)) == events
    assert preflight(FakeUnitOfWork(database), ALICE, request, now()).replay == again


def test_the_same_key_with_other_words_is_refused_naming_the_difference(database, stories):
    request = cancel_request(stories["ticket_awaiting_return"]["ticket_id"])
    cancel(database, request)
    changed = cancel_request(request.ticket_id, reason="Changed my mind.", idempotency_key=request.idempotency_key)
    with refused_by(RuleCode.IDEMPOTENCY_KEY_REUSED):
        cancel(database, changed)


def test_a_fresh_key_or_another_caller_cannot_cancel_a_ticket_twice(database, stories):
    ticket_id = stories["ticket_under_review"]["ticket_id"]
    first = cancel_request(ticket_id)
    cancel(database, first)
    with refused_by(RuleCode.TICKET_NOT_CANCELLABLE):
        cancel(database, cancel_request(ticket_id))
    with refused_by(RuleCode.TICKET_NOT_CANCELLABLE):
        cancel(database, first, caller=BOB)  # keys belong to their caller: Bob's is new, and the ticket is closed
    assert [e["type"] for e in events_of(database, ticket_id)].count("cancelled") == 1


def test_a_key_is_kept_24_hours_then_free_again(database, stories):
    start = now()
    request = cancel_request(stories["ticket_awaiting_return"]["ticket_id"])
    cancel(database, request, at=start)
    assert cancel(database, request, at=start + timedelta(hours=23, minutes=59)).outcome == "replayed"
    with refused_by(RuleCode.TICKET_NOT_CANCELLABLE):
        cancel(database, request, at=start + timedelta(hours=24))


def test_a_key_whose_first_call_is_still_cancelling_asks_for_a_retry(database, stories):
    request = cancel_request(stories["ticket_awaiting_return"]["ticket_id"])
    with FakeUnitOfWork(database) as uow:
        uow.idempotency.claim(
            ALICE.id,
            "after_sales_cancel_ticket",
            request.idempotency_key,
            request.arguments(),
            now(),
            now() + POLICY.idempotency_ttl,
        )
        uow.commit()
    with pytest.raises(Retryable, match="still being processed"):
        preflight(FakeUnitOfWork(database), ALICE, request, now())


def test_a_cancelled_ticket_frees_its_units_for_a_new_estimate_and_ticket(database, stories):
    order_id = stories["headphones_in_window_qty3"]["order_id"]
    opened = create_ticket(
        FakeUnitOfWork(database), ALICE, ticket_request(order_id, quantity=3), CONFIRMED, now(), POLICY
    )
    with refused_by(RuleCode.LINE_HAS_OPEN_TICKET):
        create_ticket(FakeUnitOfWork(database), ALICE, ticket_request(order_id), CONFIRMED, now(), POLICY)
    cancel(database, cancel_request(opened.ticket.ticket_id))
    quote = estimate_refund(
        FakeUnitOfWork(database), ALICE, order_id, 1, 3, ReasonCode.DEFECTIVE, now(), POLICY.quote_ttl
    )
    again = create_ticket(
        FakeUnitOfWork(database),
        ALICE,
        ticket_request(order_id, quantity=3, quote_id=quote.quote_id),
        CONFIRMED,
        now(),
        POLICY,
    )
    assert quote.quantity == 3 and again.outcome == "created"


class StatusChangedFirst(FakeUnitOfWork):
    """A unit of work in which the workshop starts the repair just before the cancellation is written."""

    def __enter__(self):
        uow = super().__enter__()
        move = uow.tickets.move

        def workshop_first(ticket_id, current, new, at):
            for tables in (self._work, self.database.tables):
                ticket = next(t for t in tables.rows["tickets"] if t["id"] == ticket_id)
                ticket["status"] = TicketStatus.IN_REPAIR.value
            return move(ticket_id, current, new, at)

        uow.tickets.move = workshop_first
        return uow


def test_a_status_change_between_the_check_and_the_cancel_is_never_overwritten(database, stories):
    ticket_id = stories["ticket_awaiting_return"]["ticket_id"]
    next(t for t in database.tables.rows["tickets"] if t["id"] == ticket_id)["kind"] = "repair"
    with refused_by(RuleCode.TICKET_NOT_CANCELLABLE):
        cancel_ticket(
            StatusChangedFirst(database), ALICE, cancel_request(ticket_id), "person", now(), POLICY.idempotency_ttl
        )
    assert "cancelled" not in [e["type"] for e in events_of(database, ticket_id)]
    assert next(t for t in database.tables.rows["tickets"] if t["id"] == ticket_id)["status"] == "in_repair"

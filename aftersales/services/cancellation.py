"""Withdrawing tickets: assess a cancellation without writing, then cancel once, idempotently.

A cancellation is a compare-and-set of the ticket's status inside the transaction that claims the key, so a cancel
racing another cancel or any other status change never closes a ticket twice or writes two cancellation events.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from aftersales.domain.callers import Caller
from aftersales.domain.cancellation import CancelRequest, check_cancellable
from aftersales.domain.enums import EventType, TicketStatus
from aftersales.domain.errors import Retryable
from aftersales.domain.tickets import Confirmation, TimelineEntry, customer_words
from aftersales.services.idempotency import CANCELLATION
from aftersales.services.ports.rows import Conflict
from aftersales.services.ports.unit_of_work import UnitOfWork
from aftersales.services.ticket_queries import ticket_view
from aftersales.services.views import CancelResult, TicketView


@dataclass(frozen=True)
class CancelAssessment:
    """What a cancellation would do, worked out before anything is written: a replay, or the ticket to cancel."""

    replay: CancelResult | None = None
    ticket: TicketView | None = None


class _Moved(Conflict):
    """The ticket's status changed between reading it and cancelling it: another transaction got there first."""


def preflight(uow: UnitOfWork, caller: Caller, request: CancelRequest, now: datetime) -> CancelAssessment:
    """Assess a cancellation in its own read-only unit of work (before anyone is asked anything)."""
    with uow:
        return assess(uow, caller, request, now)


def assess(
    uow: UnitOfWork, caller: Caller, request: CancelRequest, now: datetime, key_claimed: bool = False
) -> CancelAssessment:
    """The ticket, if its stage allows cancelling; a broken rule is raised, a used key replays."""
    # A used key's replay becomes CancelAssessment(replay).
    return CANCELLATION.assess(
        uow, caller, request, now, lambda: _cancellable(uow, request), CancelAssessment, key_claimed
    )


def _cancellable(uow: UnitOfWork, request: CancelRequest) -> CancelAssessment:
    """The ticket to cancel, if its stage allows it."""
    ticket = ticket_view(uow, request.ticket_id)
    check_cancellable(ticket.ticket_id, ticket.kind, ticket.status)
    return CancelAssessment(ticket=ticket)


def cancel_ticket(
    uow: UnitOfWork,
    caller: Caller,
    request: CancelRequest,
    confirmation: Confirmation,
    now: datetime,
    idempotency_ttl: timedelta,
) -> CancelResult:
    """Cancel the ticket and store the key's result in one transaction; replay or refuse as the rules say."""

    def write() -> CancelResult:
        ticket = assess(uow, caller, request, now, key_claimed=True).ticket
        assert ticket is not None  # assess raises unless the ticket can be cancelled
        if not uow.tickets.move(ticket.ticket_id, ticket.status, TicketStatus.CANCELLED, now):
            raise _Moved(ticket.ticket_id)
        uow.tickets.record(ticket.ticket_id, _events(caller, request, confirmation, now))
        result = cancelled(ticket_view(uow, ticket.ticket_id))
        CANCELLATION.remember(uow, caller, request, result)
        return result

    def reassess() -> CancelAssessment:
        return assess(uow, caller, request, now)

    return CANCELLATION.write_once(uow, caller, request, now, idempotency_ttl, write, reassess, lambda: _raced(request))


def _raced(request: CancelRequest) -> Retryable:
    """The answer when a concurrent change to the ticket left nothing to replay and no rule broken."""
    return Retryable(
        f"Ticket {request.ticket_id} changed at the same moment by another request.",
        "A ticket is cancelled only from the status it was checked in, so a change in between is never overwritten.",
        "Retry the same call (same idempotency_key) in 1 second.",
    )


def _events(caller: Caller, request: CancelRequest, confirmation: Confirmation, now: datetime) -> list[TimelineEntry]:
    """How the cancellation was confirmed, then who cancelled it for the customer and why, in their words."""
    # Both are written by this call, so both carry the channel it came from (the ticket keeps where it was raised).
    channel = request.channel.value if request.channel else None
    confirmed = {
        "person": TimelineEntry(
            now, EventType.NOTE.value, "customer", "The customer confirmed the cancellation in the client.", channel
        ),
        "host": TimelineEntry(
            now,
            EventType.NOTE.value,
            "system",
            "Confirmation of the cancellation was left to the host application: its client cannot show "
            "confirmation forms.",
            channel,
        ),
    }[confirmation]
    words = customer_words(request.reason)
    why = f'Cancelled by {caller.id} for the customer: "{words}"'
    return [confirmed, TimelineEntry(now, EventType.CANCELLED.value, caller.id, why, channel)]


def cancelled(ticket: TicketView) -> CancelResult:
    """The result of a ticket just cancelled."""
    return CancelResult(
        outcome="cancelled",
        ticket=ticket,
        next_step=f"Tell the customer ticket {ticket.ticket_id} is cancelled: nothing more happens with it, and the "
        "item's units are free again for a new request.",
    )


def not_cancelled(ticket: TicketView, reason: str) -> CancelResult:
    """The normal result when the person declined or cancelled the confirmation mid-call."""
    return CancelResult(
        outcome="not_cancelled",
        ticket=ticket,
        reason=reason,
        next_step=f"Nothing was cancelled and nothing was stored: ticket {ticket.ticket_id} goes on as before. Do "
        "not retry unless the customer changes their mind; if they do, call again (the same idempotency_key may be "
        "reused).",
    )

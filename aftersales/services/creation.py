"""Opening tickets: assess a request without writing, then create it once, idempotently."""

import json
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError

from aftersales.domain.callers import Caller
from aftersales.domain.creation import (
    TicketRequest,
    check_no_open_ticket,
    check_quote,
    check_refund_method,
    differing_fields,
    idempotency_conflict,
    missing_refund_method,
    needs_review,
)
from aftersales.domain.eligibility import (
    LineContext,
    allowed_refund_methods,
    check_delivered,
    check_quantity,
    check_window,
)
from aftersales.domain.enums import EventType, RefundMethod, TicketStatus
from aftersales.domain.errors import AfterSalesError, Retryable
from aftersales.domain.money import format_money
from aftersales.domain.refunds import Breakdown, compute_refund
from aftersales.services.housekeeping import Occasionally
from aftersales.services.lines import line_context
from aftersales.services.quotes import quote_for_use
from aftersales.services.tickets import ticket_view
from aftersales.services.views import CreateResult
from aftersales.storage.models import IdempotencyRecord, Ticket, TicketEvent
from aftersales.storage.unit_of_work import UnitOfWork

TOOL = "after_sales_create_ticket"
PURGE = Occasionally()
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CreationPolicy:
    """The configured thresholds and lifetimes creation works with."""

    quote_ttl: timedelta
    idempotency_ttl: timedelta
    confirm_above_minor: int
    review_above_minor: int
    review_recent_tickets: int
    review_window: timedelta


@dataclass(frozen=True)
class Assessment:
    """What a request would do, worked out before anything is written."""

    error: AfterSalesError | None = None
    replay: CreateResult | None = None
    line: LineContext | None = None
    breakdown: Breakdown | None = None
    allowed_methods: list[RefundMethod] = field(default_factory=list)
    method: RefundMethod | None = None  # given, or the only one allowed

    @property
    def actionable(self) -> bool:
        """Whether creation may go ahead (no error, not a replay)."""
        return self.error is None and self.replay is None and self.line is not None

    @property
    def needs_method(self) -> bool:
        """A refund kind with no method yet: the person must choose."""
        return self.actionable and bool(self.allowed_methods) and self.method is None

    def needs_confirmation(self, policy: CreationPolicy) -> bool:
        """Refunds above the threshold are confirmed by a person."""
        return (
            self.actionable and self.breakdown is not None and (self.breakdown.total_minor > policy.confirm_above_minor)
        )


@dataclass(frozen=True)
class Decisions:
    """What the person decided mid-call: the refund method, and how the amount was confirmed."""

    method: RefundMethod | None = None
    confirmation: str | None = None  # "person" or "host", for the timeline


def preflight(
    uow: UnitOfWork, caller: Caller, request: TicketRequest, now: datetime, policy: CreationPolicy
) -> Assessment:
    """Assess a request in its own read-only unit of work (before anyone is asked anything)."""
    with uow:
        return assess(uow, caller, request, now, policy)


def assess(
    uow: UnitOfWork,
    caller: Caller,
    request: TicketRequest,
    now: datetime,
    policy: CreationPolicy,
    key_claimed: bool = False,
) -> Assessment:
    """Check every rule and work out the amounts; errors are returned, not raised."""
    try:
        record = None if key_claimed else uow.idempotency.find(caller.id, TOOL, request.idempotency_key, now)
        if record is not None:
            return Assessment(replay=_replay(record, request))
        line = line_context(uow, request.order_id, request.line_no)
        check_delivered(line)
        check_window(line, request.kind, now)
        check_no_open_ticket(uow.tickets.open_ticket_on(line.order_id, line.line_no), line.order_id, line.line_no)
        check_quantity(line, request.quantity)
        allowed = allowed_refund_methods(line.payment_method) if request.kind.refunds else []
        check_refund_method(request.kind, request.refund_method, allowed)
        method = request.refund_method or (allowed[0] if len(allowed) == 1 else None)
        breakdown = _amounts(uow, caller, request, line, now, policy)
        return Assessment(line=line, breakdown=breakdown, allowed_methods=allowed, method=method)
    except AfterSalesError as error:
        if not key_claimed:
            # Read committed: a same-key call may have committed between our key lookup and the rule that
            # failed (its new open ticket, say). Its record then answers for us.
            late = uow.idempotency.find(caller.id, TOOL, request.idempotency_key, now)
            if late is not None:
                try:
                    return Assessment(replay=_replay(late, request))
                except AfterSalesError as conflict:
                    return Assessment(error=conflict)
        return Assessment(error=error)


def _amounts(
    uow: UnitOfWork, caller: Caller, request: TicketRequest, line: LineContext, now: datetime, policy: CreationPolicy
) -> Breakdown:
    """The locked amounts of a matching quote, or the policy's amounts now."""
    if request.quote_id is None:
        return compute_refund(line.facts, request.quantity, request.reason, request.kind)
    quote = quote_for_use(uow, caller, request.quote_id, now, policy.quote_ttl)
    check_quote(
        {
            "order_id": quote.order_id,
            "line_no": quote.line_no,
            "quantity": quote.quantity,
            "reason_code": quote.reason_code,
        },
        request,
    )
    return Breakdown(quote.item_amount_minor, quote.restocking_fee_minor, quote.shipping_refund_minor)


def _replay(record: IdempotencyRecord, request: TicketRequest) -> CreateResult:
    """The stored result of the key's first call, or the error naming what changed."""
    stored = json.loads(record.arguments)
    fields = differing_fields(stored, request.arguments())
    if fields:
        raise idempotency_conflict(request.idempotency_key, fields, stored, request.arguments())
    if record.result is None:  # only visible to a reader racing the creating transaction
        raise Retryable(
            f'A request with idempotency_key "{request.idempotency_key}" is still being processed.',
            "One key creates at most one ticket; the first call is finishing now.",
            "Retry the same call in 1 second to receive its result.",
            retry_after=1.0,
        )
    first = CreateResult.model_validate_json(record.result)
    ticket_id = first.ticket.ticket_id if first.ticket else "the ticket"
    return first.model_copy(
        update={
            "outcome": "replayed",
            "next_step": f"This request was already handled: {ticket_id} was created by the first call and no "
            f"new ticket was made. Do not call again; use after_sales_query_ticket with {ticket_id} for its current "
            "state.",
        }
    )


def create_ticket(
    uow: UnitOfWork,
    caller: Caller,
    request: TicketRequest,
    decisions: Decisions,
    now: datetime,
    policy: CreationPolicy,
    checked: Assessment | None = None,
) -> CreateResult:
    """Create the ticket and its idempotency record in one transaction; replay or refuse as the rules say.

    `checked` is this call's own preflight, made moments earlier; passing it keeps the rule checks out of the
    write lock. That is safe because what could change in between is guarded by constraints in this transaction:
    the key's unique index, one open ticket per line (which also keeps the quantity from being double-counted),
    and the ticket counter.
    """
    try:
        with uow:
            # This key's own expired record must go before it can be claimed again; the rest only now and then.
            uow.idempotency.drop_expired(caller.id, TOOL, request.idempotency_key, now)
            if PURGE.due(now):
                uow.idempotency.purge_expired(now)
            existing = uow.idempotency.find(caller.id, TOOL, request.idempotency_key, now)
            if existing is not None:
                return _replay(existing, request)
            # Claim the key before checking any rule: a concurrent call with the same key now waits on (or fails)
            # the unique constraint instead of racing us through the rules. A broken rule rolls the claim back.
            record = _claim(uow, caller, request, now, policy)
            fresh = checked is not None and checked.actionable
            assessment = checked if fresh else assess(uow, caller, request, now, policy, key_claimed=True)
            if assessment.error is not None:
                raise assessment.error
            result = _insert(uow, caller, request, assessment, decisions, now, policy)
            record.result, record.ticket_id = (
                result.model_dump_json(),
                result.ticket.ticket_id if result.ticket else None,
            )
            uow.commit()
            return result
    except IntegrityError:
        # A concurrent call won the race for this key or this order line; answer as if we had come second.
        log.info("create_ticket lost a race for key %s; re-reading", request.idempotency_key)
        with uow:
            assessment = assess(uow, caller, request, now, policy)
        if assessment.replay is not None:
            return assessment.replay
        if assessment.error is not None:
            raise assessment.error from None
        raise Retryable(
            "Another request changed this order line at the same moment.",
            "Tickets are created one at a time per order line.",
            "Retry the same call (same idempotency_key) in 1 second.",
        ) from None


def _claim(
    uow: UnitOfWork, caller: Caller, request: TicketRequest, now: datetime, policy: CreationPolicy
) -> IdempotencyRecord:
    """Insert the key's record, result still empty, inside the creating transaction."""
    record = IdempotencyRecord(
        caller=caller.id,
        tool=TOOL,
        key=request.idempotency_key,
        fingerprint=request.fingerprint(),
        arguments=json.dumps(request.arguments(), sort_keys=True),
        result=None,
        created_at=now,
        expires_at=now + policy.idempotency_ttl,
    )
    uow.idempotency.claim(record)
    return record


def _insert(
    uow: UnitOfWork,
    caller: Caller,
    request: TicketRequest,
    assessment: Assessment,
    decisions: Decisions,
    now: datetime,
    policy: CreationPolicy,
) -> CreateResult:
    """Number the ticket and write it with its first events."""
    line, breakdown = assessment.line, assessment.breakdown
    assert line is not None and breakdown is not None
    method = request.refund_method or decisions.method or assessment.method
    if request.kind.refunds and method is None:
        raise missing_refund_method(request.kind, assessment.allowed_methods)
    check_refund_method(request.kind, method, assessment.allowed_methods)
    recent = uow.tickets.opened_since(line.customer_id, now - policy.review_window)
    review = needs_review(breakdown.total_minor, policy.review_above_minor, recent, policy.review_recent_tickets)
    ticket = Ticket(
        id=f"T-{now.year}-{uow.tickets.next_number(now.year):04d}",
        order_id=line.order_id,
        line_no=line.line_no,
        customer_id=line.customer_id,
        quantity=request.quantity,
        kind=request.kind.value,
        reason_code=request.reason.value,
        description=request.description,
        refund_method=method.value if method else None,
        currency=line.currency,
        item_amount_minor=breakdown.item_amount_minor,
        restocking_fee_minor=breakdown.restocking_fee_minor,
        shipping_refund_minor=breakdown.shipping_refund_minor,
        refund_total_minor=breakdown.total_minor,
        status=(TicketStatus.UNDER_REVIEW if review else TicketStatus.APPROVED).value,
        created_by=caller.id,
        created_at=now,
        updated_at=now,
    )
    uow.tickets.add(ticket, _first_events(ticket, caller, decisions, review, now))
    view = ticket_view(uow, ticket.id)
    result = CreateResult(
        outcome="created",
        ticket=view,
        next_step=f"Tell the customer their ticket number is {ticket.id}. {view.next_step}",
    )
    return result


def _first_events(
    ticket: Ticket, caller: Caller, decisions: Decisions, review: bool, now: datetime
) -> list[TicketEvent]:
    """The timeline a new ticket starts with, including how a large refund was confirmed."""
    words = ticket.description if len(ticket.description) <= 120 else ticket.description[:117] + "..."
    amount = format_money(ticket.refund_total_minor, ticket.currency)
    steps: list[tuple[EventType, str, str]] = [
        (EventType.CREATED, caller.id, f'Opened by {caller.id} for the customer: "{words}"')
    ]
    if decisions.confirmation == "person":
        steps.append((EventType.NOTE, "customer", f"The customer confirmed the refund of {amount} in the client."))
    elif decisions.confirmation == "host":
        steps.append(
            (
                EventType.NOTE,
                "system",
                f"Confirmation of the {amount} refund was left to the host "
                "application: its client cannot show confirmation forms.",
            )
        )
    if review:
        steps.append((EventType.REVIEW_STARTED, "system", "Queued for a specialist's review."))
    else:
        steps.append((EventType.APPROVED, "system", "Approved automatically under the after-sales policy."))
    return [
        TicketEvent(ticket_id=ticket.id, occurred_at=now, type=kind.value, actor=actor, note=note)
        for kind, actor, note in steps
    ]


def not_created(reason: str) -> CreateResult:
    """The normal result when the person declined or cancelled mid-call."""
    return CreateResult(
        outcome="not_created",
        ticket=None,
        reason=reason,
        next_step="No ticket was created and nothing was stored. Do not retry unless the customer changes their "
        "mind; if they do, call again (the same idempotency_key may be reused).",
    )

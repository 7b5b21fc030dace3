"""Opening tickets: assess a request without writing, then create it once, idempotently."""

import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from aftersales.domain.callers import Caller
from aftersales.domain.creation import (
    TicketRequest,
    check_quote,
    check_refund_method,
    missing_refund_method,
    needs_review,
)
from aftersales.domain.eligibility import LineContext, allowed_refund_methods, check_ticket
from aftersales.domain.enums import EventType, RefundMethod, TicketStatus
from aftersales.domain.errors import Retryable
from aftersales.domain.money import format_money
from aftersales.domain.policy import Thresholds
from aftersales.domain.refunds import NO_REFUND, Breakdown, compute_refund
from aftersales.domain.tickets import Confirmation, NewTicket, TimelineEntry, customer_words
from aftersales.services import idempotency
from aftersales.services.lines import line_context
from aftersales.services.payouts import CallPayout, Payout, call_payout
from aftersales.services.ports.rows import TicketDetails
from aftersales.services.ports.unit_of_work import UnitOfWork
from aftersales.services.quotes import quote_for_use
from aftersales.services.ticket_queries import TIMELINE_LIMIT, view_of
from aftersales.services.views import CreateResult


@dataclass(frozen=True, kw_only=True)
class CreationPolicy(Thresholds):
    """The configured thresholds, and the lifetimes of quotes and idempotency keys, creation works with."""

    quote_ttl: timedelta
    idempotency_ttl: timedelta


@dataclass(frozen=True)
class Assessment:
    """What a request would do, worked out before anything is written: a replay, or what creation needs."""

    replay: CreateResult | None = None
    line: LineContext | None = None
    breakdown: Breakdown | None = None
    allowed_methods: list[RefundMethod] = field(default_factory=list)
    method: RefundMethod | None = None  # given, the only one allowed, or bank_transfer once its page is open
    payout: CallPayout | None = None  # the bank-account page this call opened, if any

    @property
    def actionable(self) -> bool:
        """Whether creation may go ahead (not a replay)."""
        return self.replay is None and self.line is not None

    @property
    def needs_method(self) -> bool:
        """A refund kind with no method yet: the person must choose."""
        return self.actionable and bool(self.allowed_methods) and self.method is None

    def needs_confirmation(self, policy: Thresholds) -> bool:
        """Refunds above the threshold are confirmed by a person."""
        return (
            self.actionable
            and self.breakdown is not None
            and self.breakdown.total_minor > policy.confirm_above_minor
            and self.confirmed_before is None
        )

    @property
    def confirmed_before(self) -> Confirmation | None:
        """How the refund was confirmed before this call's bank-account page opened."""
        return self.payout.confirmation if self.payout is not None else None


@dataclass(frozen=True)
class Decisions:
    """What the person decided mid-call: the refund method, and how the amount was confirmed."""

    method: RefundMethod | None = None
    confirmation: Confirmation | None = None
    payout: Payout | None = None  # the account a bank transfer goes to, as the ticket may know it


def may_ask(request: TicketRequest, policy: CreationPolicy) -> bool:
    """Whether assessing `request` could leave a question for the person (a refund method, a confirmation).

    False when it cannot, whatever the database holds: a kind that refunds nothing, priced without a quote, has no
    refund method to choose and an amount (none) that needs no confirmation.
    """
    return request.kind.refunds or request.quote_id is not None or NO_REFUND.total_minor > policy.confirm_above_minor


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
    """Check every rule and work out the amounts; a broken rule is raised, a used key replays."""
    # A used key's replay becomes Assessment(replay).
    return idempotency.CREATION.assess(
        uow, caller, request, now, lambda: _checked(uow, caller, request, now, policy), Assessment, key_claimed
    )


def _checked(
    uow: UnitOfWork, caller: Caller, request: TicketRequest, now: datetime, policy: CreationPolicy
) -> Assessment:
    """The line's rules, the refund method's, and the amounts."""
    line = line_context(uow, request.order_id, request.line_no)
    check_ticket(line, request.kind, request.quantity, now)
    allowed = allowed_refund_methods(line.payment_method) if request.kind.refunds else []
    check_refund_method(request.kind, request.refund_method, allowed)
    method = request.refund_method or (allowed[0] if len(allowed) == 1 else None)
    payout = call_payout(uow, caller, request, now) if RefundMethod.BANK_TRANSFER in allowed else None
    if payout is not None and payout.status == "closed":
        payout = None  # the person closed that page: this call starts again from the choice of method
    if payout is not None:
        method = RefundMethod.BANK_TRANSFER  # the person chose it before the page opened
    breakdown = _amounts(uow, caller, request, line, now, policy)
    return Assessment(line=line, breakdown=breakdown, allowed_methods=allowed, method=method, payout=payout)


def _amounts(
    uow: UnitOfWork, caller: Caller, request: TicketRequest, line: LineContext, now: datetime, policy: CreationPolicy
) -> Breakdown:
    """The locked amounts of a matching quote, or the policy's amounts now."""
    if request.quote_id is None:
        return compute_refund(line.facts, request.quantity, request.reason, request.kind)
    quote = quote_for_use(uow, caller, request.quote_id, now, policy.quote_ttl)
    check_quote(quote, request)
    return quote.refund


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

    def write() -> CreateResult:
        assessed = checked
        if assessed is None or not assessed.actionable:
            assessed = assess(uow, caller, request, now, policy, key_claimed=True)
        return _insert(uow, caller, request, assessed, decisions, now, policy)

    def reassess() -> Assessment:
        return assess(uow, caller, request, now, policy)

    return idempotency.CREATION.write_once(uow, caller, request, now, policy.idempotency_ttl, write, reassess, _raced)


def _raced() -> Retryable:
    """The answer when a concurrent create on the line left nothing to replay and no rule broken."""
    return Retryable(
        "Another request changed this order line at the same moment.",
        "Tickets are created one at a time per order line.",
        "Retry the same call (same idempotency_key) in 1 second.",
    )


def _insert(
    uow: UnitOfWork,
    caller: Caller,
    request: TicketRequest,
    assessment: Assessment,
    decisions: Decisions,
    now: datetime,
    policy: CreationPolicy,
) -> CreateResult:
    """Write the ticket with its first events and its key's result, numbering it last."""
    line, breakdown = assessment.line, assessment.breakdown
    assert line is not None and breakdown is not None  # an actionable assessment has both
    method = request.refund_method or decisions.method or assessment.method
    if request.kind.refunds and method is None:
        raise missing_refund_method(request.kind, assessment.allowed_methods)
    check_refund_method(request.kind, method, assessment.allowed_methods)
    if method is RefundMethod.BANK_TRANSFER and (
        decisions.payout is None or not uow.payouts.use(decisions.payout.request_id)
    ):
        raise Retryable(
            "The customer's bank account for this refund is not on file (its page was not submitted, or another "
            "call used it).",
            "A bank transfer needs the account the customer gives on the shop's own page.",
            "Call again with the same arguments and idempotency_key so the server sends the page again.",
        )
    recent = uow.tickets.opened_since(line.customer_id, now - policy.review_window)
    review = needs_review(breakdown.total_minor, policy.review_above_minor, recent, policy.review_recent_tickets)
    # Everything is written with a placeholder for the number, drawn last (storage.opening): the year's counter
    # stays locked from the draw to the commit, and every other create waits for it.
    draft = NewTicket(
        id=f"T-{now.year}-{uuid.uuid4().hex}",
        order_id=line.order_id,
        line_no=line.line_no,
        customer_id=line.customer_id,
        quantity=request.quantity,
        kind=request.kind,
        reason=request.reason,
        description=request.description,
        refund_method=method,
        currency=line.currency,
        refund=breakdown,
        status=TicketStatus.UNDER_REVIEW if review else TicketStatus.APPROVED,
        created_by=caller.id,
        created_at=now,
        channel=request.channel,
    )
    received = received_words(decisions.payout) if decisions.payout is not None else None
    events = _first_events(draft, caller, decisions, review)
    if received is not None:
        events.insert(1, draft.entry(EventType.NOTE, "customer", received))
    drafted = _created(draft, line, events, received)
    number = uow.tickets.open(draft, events, idempotency.CREATION.completion(caller, request, drafted))
    return _created(replace(draft, id=number), line, events, received)


def _created(
    ticket: NewTicket, line: LineContext, events: list[TimelineEntry], received: str | None = None
) -> CreateResult:
    """The result of creating `ticket` (`received`: what it says of a bank account given on the page)."""
    # Built from what is written rather than read back: the row holds exactly these values.
    view = view_of(_details(ticket, line), events[-TIMELINE_LIMIT:], len(events))
    return CreateResult(
        outcome="created",
        ticket=view,
        next_step=" ".join(
            part
            for part in (received, f"Tell the customer their ticket number is {ticket.id}.", view.next_step)
            if part
        ),
    )


def received_words(payout: Payout) -> str:
    """The timeline's (and the result's) only words about the account: masked, with its payout reference."""
    return (
        f"The customer's bank account was received on the shop's own page ({payout.account_mask}, payout "
        f"reference {payout.reference}); the refund goes there by bank transfer. The account is held encrypted "
        "and is never shown in full."
    )


def _details(ticket: NewTicket, line: LineContext) -> TicketDetails:
    """The fields a view shows of a ticket just written (what the tickets row and its line's product hold)."""
    return TicketDetails(
        id=ticket.id,
        order_id=ticket.order_id,
        quantity=ticket.quantity,
        kind=ticket.kind.value,
        status=ticket.status.value,
        refund_method=ticket.refund_method.value if ticket.refund_method else None,
        refund_total_minor=ticket.refund.total_minor,
        currency=ticket.currency,
        created_at=ticket.created_at,
        updated_at=ticket.created_at,
        sku=line.sku,
        name=line.product_name,
        channel=ticket.channel.value if ticket.channel else None,
    )


def _first_events(ticket: NewTicket, caller: Caller, decisions: Decisions, review: bool) -> list[TimelineEntry]:
    """The timeline a new ticket starts with, including how a large refund was confirmed."""
    amount = format_money(ticket.refund.total_minor, ticket.currency)
    words = customer_words(ticket.description)
    events = [ticket.entry(EventType.CREATED, caller.id, f'Opened by {caller.id} for the customer: "{words}"')]
    if decisions.confirmation == "person":
        events.append(
            ticket.entry(EventType.NOTE, "customer", f"The customer confirmed the refund of {amount} in the client.")
        )
    elif decisions.confirmation == "host":
        events.append(
            ticket.entry(
                EventType.NOTE,
                "system",
                f"Confirmation of the {amount} refund was left to the host "
                "application: its client cannot show confirmation forms.",
            )
        )
    if review:
        events.append(ticket.entry(EventType.REVIEW_STARTED, "system", "Queued for a specialist's review."))
    else:
        events.append(
            ticket.entry(EventType.APPROVED, "system", "Approved automatically under the after-sales policy.")
        )
    return events


NOT_CREATED_NEXT = (
    "No ticket was created and nothing was stored. Do not retry unless the customer changes their mind; if they do, "
    "call again (the same idempotency_key may be reused)."
)
# After the bank-account page was closed or ran out: the account is the one thing missing.
ACCOUNT_NEXT = (
    "No ticket was created and no account was stored. Ask the customer whether they still want a bank transfer: if "
    "so, call again with the same arguments and idempotency_key and the server sends them a fresh page; otherwise "
    "offer store credit (refund_method store_credit)."
)


def not_created(reason: str, next_step: str = NOT_CREATED_NEXT) -> CreateResult:
    """The normal result when the person declined or cancelled mid-call."""
    return CreateResult(outcome="not_created", ticket=None, reason=reason, next_step=next_step)

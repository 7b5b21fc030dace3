"""What a customer sees: the stage of a ticket and the next step with its date."""

from datetime import datetime

from aftersales.domain.enums import RefundMethod, Stage, TicketKind, TicketStatus
from aftersales.domain.policy import STATUS_SLA

_METHOD_WORDS = {
    RefundMethod.ORIGINAL_PAYMENT: "the original payment method",
    RefundMethod.STORE_CREDIT: "store credit",
    RefundMethod.BANK_TRANSFER: "the bank account the customer gave",
}


def stage_of(kind: TicketKind, status: TicketStatus) -> Stage:
    """Map an internal status to the customer-facing stage."""
    if not status.is_open:
        return Stage.CLOSED
    if status is TicketStatus.UNDER_REVIEW:
        return Stage.REVIEW
    if status is TicketStatus.APPROVED:
        # Approved means the kind's first step after review has begun.
        return Stage.REFUND if kind is TicketKind.REFUND_ONLY else Stage.AWAITING_RETURN
    return {
        TicketStatus.AWAITING_RETURN: Stage.AWAITING_RETURN,
        TicketStatus.IN_REPAIR: Stage.REPAIR,
        TicketStatus.REFUNDING: Stage.REFUND,
    }[status]


def next_step_due(kind: TicketKind, status: TicketStatus, status_since: datetime) -> datetime | None:
    """When the next step of a ticket in `status` since `status_since` is due; None once the ticket is closed."""
    if not status.is_open:
        return None
    due = status_since + STATUS_SLA[status]
    if status is TicketStatus.APPROVED and kind is not TicketKind.REFUND_ONLY:
        # An approved ticket's label goes out first; the 14 days to ship run from then.
        due += STATUS_SLA[TicketStatus.AWAITING_RETURN]
    return due


def next_step(
    kind: TicketKind,
    status: TicketStatus,
    status_since: datetime,
    refund_display: str | None,
    refund_method: RefundMethod | None,
) -> str:
    """The next thing that happens and by when, in plain words."""
    due_at = next_step_due(kind, status, status_since)
    if due_at is None:
        return {
            TicketStatus.COMPLETED: "Nothing more to do: the ticket is completed.",
            TicketStatus.REJECTED: "Nothing more to do: the request was rejected; see the timeline for the reason.",
            TicketStatus.CANCELLED: "Nothing more to do: the ticket was cancelled.",
        }[status]
    due = due_at.strftime("%Y-%m-%d")
    money = f"{refund_display} to {_METHOD_WORDS[refund_method]}" if refund_display and refund_method else None
    if status is TicketStatus.UNDER_REVIEW:
        return f"A specialist reviews the request and decides by {due}."
    if status is TicketStatus.APPROVED and kind is TicketKind.REFUND_ONLY:
        return f"The refund of {money} is issued by {due}."
    if status in (TicketStatus.APPROVED, TicketStatus.AWAITING_RETURN):
        purpose = {
            TicketKind.RETURN_AND_REFUND: f"the refund of {money} follows once it arrives",
            TicketKind.EXCHANGE: "a replacement ships once it arrives",
            TicketKind.REPAIR: "the repair starts once it arrives",
        }[kind]
        return f"The customer ships the item back with the prepaid label by {due}; {purpose}."
    if status is TicketStatus.IN_REPAIR:
        return f"The repair is expected to finish and the item to ship back by {due}."
    return f"The refund of {money} reaches the customer by {due}."

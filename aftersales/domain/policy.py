"""The shop's after-sales policy in one readable place: every window, fee, threshold and rule of thumb.

The rules (eligibility, refunds, creation, cancellation), storage (the categories table is seeded from here), seeding,
the tool descriptions and the policy text agents read (domain/policy_text.py) all read these values. `Thresholds`
holds the defaults of the numbers settings may override (AFTERSALES_CONFIRM_ABOVE_MINOR, AFTERSALES_REVIEW_*).
"""

import calendar
from dataclasses import dataclass
from datetime import datetime, timedelta

from aftersales.domain.enums import PaymentMethod, ReasonCode, RefundMethod, Stage, TicketKind, TicketStatus


@dataclass(frozen=True)
class CategoryPolicy:
    """Return window and restocking fee of one product category."""

    code: str
    name: str
    return_window_days: int  # days after delivery in which items can be returned, refunded or exchanged
    restocking_fee_bps: int  # basis points of the item amount, charged on no-fault returns


CATEGORY_POLICIES: tuple[CategoryPolicy, ...] = (
    CategoryPolicy("laptops", "Laptops", 15, 1000),
    CategoryPolicy("phones", "Phones", 15, 1000),
    CategoryPolicy("audio", "Audio", 30, 500),
    CategoryPolicy("home_appliances", "Home appliances", 30, 1500),
    CategoryPolicy("apparel", "Apparel", 30, 0),
    CategoryPolicy("books", "Books", 7, 0),
    CategoryPolicy("beauty", "Beauty", 7, 0),
    CategoryPolicy("toys", "Toys", 30, 0),
)

# Reasons where the shop, not the customer, caused the problem: no restocking fee, and shipping is refunded in
# proportion to the goods returned. Every other reason pays the category's restocking fee and no shipping.
SELLER_AT_FAULT: frozenset[ReasonCode] = frozenset(
    {
        ReasonCode.DAMAGED,
        ReasonCode.DEFECTIVE,
        ReasonCode.WRONG_ITEM,
        ReasonCode.NOT_AS_DESCRIBED,
        ReasonCode.MISSING_PARTS,
        ReasonCode.LATE_DELIVERY,
    }
)

# Where a refund may go, by how the order was paid: gift-card payments come back as store credit only; cash paid on
# delivery has no payment to go back to, so it goes to a bank account the customer gives on the shop's own page.
REFUND_METHODS: dict[PaymentMethod, tuple[RefundMethod, ...]] = {
    PaymentMethod.CARD: (RefundMethod.ORIGINAL_PAYMENT, RefundMethod.STORE_CREDIT),
    PaymentMethod.WALLET: (RefundMethod.ORIGINAL_PAYMENT, RefundMethod.STORE_CREDIT),
    PaymentMethod.GIFT_CARD: (RefundMethod.STORE_CREDIT,),
    PaymentMethod.CASH_ON_DELIVERY: (RefundMethod.BANK_TRANSFER, RefundMethod.STORE_CREDIT),
}


@dataclass(frozen=True)
class Thresholds:
    """When a person steps in: the customer confirms large refunds, a specialist reviews large or frequent ones."""

    confirm_above_minor: int = 50_000  # refunds above this are confirmed by the customer before a ticket opens
    review_above_minor: int = 300_000  # refunds above this start under a specialist's review
    review_recent_tickets: int = 3  # so does a customer's ticket once they opened this many within the window
    review_window: timedelta = timedelta(days=30)


# The defaults; settings override each number (aftersales.settings reads its defaults from here).
THRESHOLDS = Thresholds()


def holds_units(kind: TicketKind, status: TicketStatus) -> bool:
    """Whether a ticket keeps its units from further tickets on its line.

    Open tickets of any kind do, and so do completed refunds; a completed repair or exchange leaves the item with
    the customer, and a rejected or cancelled ticket held nothing.
    """
    return status.is_open or (status is TicketStatus.COMPLETED and kind.refunds)


def add_months(moment: datetime, months: int) -> datetime:
    """The same day `months` later, clamped to the month's last day."""
    month_index = moment.month - 1 + months
    year, month = moment.year + month_index // 12, month_index % 12 + 1
    return moment.replace(year=year, month=month, day=min(moment.day, calendar.monthrange(year, month)[1]))


def return_window_closes(delivered_at: datetime, return_window_days: int) -> datetime:
    """When returns, refunds and exchanges stop being possible for an item delivered at `delivered_at`."""
    return delivered_at + timedelta(days=return_window_days)


def warranty_ends(delivered_at: datetime, warranty_months: int) -> datetime:
    """When free repairs stop: the product's warranty runs for whole months from delivery."""
    return add_months(delivered_at, warranty_months)


@dataclass(frozen=True)
class CancelRefusal:
    """Why a ticket in some stage can no longer be cancelled, and what to do for the customer instead."""

    why: str
    instead: str


# The stages a customer may still withdraw a ticket from (after_sales_cancel_ticket), with the reason it is harmless.
CANCELLABLE: dict[Stage, str] = {
    Stage.REVIEW: "nobody has acted on the request yet",
    Stage.AWAITING_RETURN: "the item has not been sent back yet, so the customer simply keeps it",
}
# Every other stage, and why cancelling is impossible there.
NOT_CANCELLABLE: dict[Stage, CancelRefusal] = {
    Stage.REPAIR: CancelRefusal(
        "the item is at the workshop and its repair has started",
        "tell the customer when the repaired item ships back (after_sales_query_ticket gives the date)",
    ),
    Stage.REFUND: CancelRefusal(
        "the refund is being paid out, and money on its way cannot be called back",
        "tell the customer when the money arrives (after_sales_query_ticket gives the date)",
    ),
    Stage.CLOSED: CancelRefusal(
        "the ticket is finished (completed, rejected or already cancelled), so nothing is left to withdraw",
        "tell the customer how it ended (after_sales_query_ticket shows the timeline); for a new problem with the "
        "item, start again with after_sales_estimate_refund or after_sales_create_ticket",
    ),
}


# How long each open status normally takes before the next step happens.
STATUS_SLA: dict[TicketStatus, timedelta] = {
    TicketStatus.UNDER_REVIEW: timedelta(days=2),
    TicketStatus.APPROVED: timedelta(days=1),
    TicketStatus.AWAITING_RETURN: timedelta(days=14),
    TicketStatus.IN_REPAIR: timedelta(days=10),
    TicketStatus.REFUNDING: timedelta(days=5),
}

# Statuses a ticket of each kind can be in; the seed covers every pair.
KIND_STATUSES: dict[TicketKind, tuple[TicketStatus, ...]] = {
    TicketKind.REFUND_ONLY: (
        TicketStatus.UNDER_REVIEW,
        TicketStatus.APPROVED,
        TicketStatus.REFUNDING,
        TicketStatus.COMPLETED,
        TicketStatus.REJECTED,
        TicketStatus.CANCELLED,
    ),
    TicketKind.RETURN_AND_REFUND: (
        TicketStatus.UNDER_REVIEW,
        TicketStatus.APPROVED,
        TicketStatus.AWAITING_RETURN,
        TicketStatus.REFUNDING,
        TicketStatus.COMPLETED,
        TicketStatus.REJECTED,
        TicketStatus.CANCELLED,
    ),
    TicketKind.EXCHANGE: (
        TicketStatus.UNDER_REVIEW,
        TicketStatus.APPROVED,
        TicketStatus.AWAITING_RETURN,
        TicketStatus.COMPLETED,
        TicketStatus.REJECTED,
        TicketStatus.CANCELLED,
    ),
    TicketKind.REPAIR: (
        TicketStatus.UNDER_REVIEW,
        TicketStatus.APPROVED,
        TicketStatus.AWAITING_RETURN,
        TicketStatus.IN_REPAIR,
        TicketStatus.COMPLETED,
        TicketStatus.REJECTED,
        TicketStatus.CANCELLED,
    ),
}

"""The shop's after-sales policy in one readable place.

Numbers here are what the tool descriptions promise; change them together.
"""

from dataclasses import dataclass
from datetime import timedelta

from aftersales.domain.enums import TicketKind, TicketStatus


@dataclass(frozen=True)
class CategoryPolicy:
    """Return window and restocking fee of one product category."""

    code: str
    name: str
    return_window_days: int
    restocking_fee_bps: int  # basis points of the item amount, charged on no-fault returns
    default_warranty_months: int


CATEGORY_POLICIES: tuple[CategoryPolicy, ...] = (
    CategoryPolicy("laptops", "Laptops", 15, 1000, 24),
    CategoryPolicy("phones", "Phones", 15, 1000, 12),
    CategoryPolicy("audio", "Audio", 30, 500, 12),
    CategoryPolicy("home_appliances", "Home appliances", 30, 1500, 36),
    CategoryPolicy("apparel", "Apparel", 30, 0, 0),
    CategoryPolicy("books", "Books", 7, 0, 0),
    CategoryPolicy("beauty", "Beauty", 7, 0, 0),
    CategoryPolicy("toys", "Toys", 30, 0, 6),
)

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

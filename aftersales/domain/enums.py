"""The closed vocabularies of the after-sales domain."""

from enum import StrEnum


class Tier(StrEnum):
    """Customer loyalty tier."""

    STANDARD = "standard"
    PLUS = "plus"
    VIP = "vip"


class Channel(StrEnum):
    """Where an order was placed, or where a call about a ticket came from (the app, the web shop, the mini-program)."""

    APP = "app"
    WEB = "web"
    MINIPROGRAM = "miniprogram"


class PaymentMethod(StrEnum):
    """How the order was paid."""

    CARD = "card"
    WALLET = "wallet"
    GIFT_CARD = "gift_card"
    CASH_ON_DELIVERY = "cash_on_delivery"


class OrderStatus(StrEnum):
    """Fulfilment state of an order."""

    PENDING = "pending"  # paid, not yet shipped
    SHIPPED = "shipped"  # in transit
    DELIVERED = "delivered"
    CANCELLED = "cancelled"


class TicketKind(StrEnum):
    """What the customer asks for."""

    REFUND_ONLY = "refund_only"
    RETURN_AND_REFUND = "return_and_refund"
    EXCHANGE = "exchange"
    REPAIR = "repair"

    @property
    def refunds(self) -> bool:
        """Whether this kind pays money back (and so needs a refund method)."""
        return self in (TicketKind.REFUND_ONLY, TicketKind.RETURN_AND_REFUND)


class ReasonCode(StrEnum):
    """Why the customer wants after-sales service."""

    DAMAGED = "damaged"
    DEFECTIVE = "defective"
    WRONG_ITEM = "wrong_item"
    NOT_AS_DESCRIBED = "not_as_described"
    MISSING_PARTS = "missing_parts"
    NO_LONGER_NEEDED = "no_longer_needed"
    LATE_DELIVERY = "late_delivery"
    OTHER = "other"


class RefundMethod(StrEnum):
    """Where refunded money goes."""

    ORIGINAL_PAYMENT = "original_payment"
    STORE_CREDIT = "store_credit"
    BANK_TRANSFER = "bank_transfer"  # cash-on-delivery orders: to an account the customer gives on the shop's page


class TicketStatus(StrEnum):
    """Internal ticket status; customers see the coarser `Stage`."""

    UNDER_REVIEW = "under_review"
    APPROVED = "approved"
    AWAITING_RETURN = "awaiting_return"
    IN_REPAIR = "in_repair"
    REFUNDING = "refunding"
    COMPLETED = "completed"
    REJECTED = "rejected"
    CANCELLED = "cancelled"

    @property
    def is_open(self) -> bool:
        """Whether the ticket still needs work."""
        return self not in CLOSED_STATUSES


# In declaration order, so whatever is built from it (storage's SQL, say) reads the same on every run.
CLOSED_STATUSES: tuple[TicketStatus, ...] = (TicketStatus.COMPLETED, TicketStatus.REJECTED, TicketStatus.CANCELLED)


class Stage(StrEnum):
    """The customer-facing stage of a ticket."""

    REVIEW = "review"
    AWAITING_RETURN = "awaiting_return"
    REPAIR = "repair"
    REFUND = "refund"
    CLOSED = "closed"


class EventType(StrEnum):
    """Entries in a ticket's timeline."""

    CREATED = "created"
    REVIEW_STARTED = "review_started"
    APPROVED = "approved"
    RETURN_LABEL_SENT = "return_label_sent"
    PARCEL_RECEIVED = "parcel_received"
    REPAIR_STARTED = "repair_started"
    REPAIR_FINISHED = "repair_finished"
    REPLACEMENT_SHIPPED = "replacement_shipped"
    REFUND_ISSUED = "refund_issued"
    REFUND_COMPLETED = "refund_completed"
    COMPLETED = "completed"
    REJECTED = "rejected"
    CANCELLED = "cancelled"
    NOTE = "note"


def values(enum: type[StrEnum]) -> list[str]:
    """The string values of an enum, in declaration order."""
    return [member.value for member in enum]

"""The payout_requests table: one bank-account page per intended ticket, and what the person gave on it."""

from datetime import datetime

from sqlalchemy import Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from aftersales.domain.tickets import CONFIRMATIONS
from aftersales.storage.base import Base, UtcDateTime, one_of

PAYOUT_STATUSES = ("pending", "submitted", "used", "closed")


class PayoutRequest(Base):
    """A pending (or answered) request for a refund's bank account; the account itself only ever sealed."""

    __tablename__ = "payout_requests"
    __table_args__ = (
        one_of("status", PAYOUT_STATUSES),
        one_of("confirmation", CONFIRMATIONS, nullable=True),
        # One page per intended ticket: the caller's idempotency key, as the ticket itself is keyed.
        UniqueConstraint("caller", "idempotency_key"),
        UniqueConstraint("token_digest"),
        UniqueConstraint("reference"),
        Index("ix_payout_requests_expires_at", "expires_at"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    token_digest: Mapped[str] = mapped_column(String(64))  # SHA-256 of the page's token; the token is never stored
    caller: Mapped[str] = mapped_column(String(128))
    idempotency_key: Mapped[str] = mapped_column(String(64))
    arguments: Mapped[str] = mapped_column(Text)  # the call's arguments as JSON: the page answers only that call
    order_id: Mapped[str] = mapped_column(String(20))
    line_no: Mapped[int] = mapped_column(Integer)
    confirmation: Mapped[str | None] = mapped_column(String(8))  # how a large refund was confirmed before the page
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    submitted_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    reference: Mapped[str | None] = mapped_column(String(20))  # PO-XXXXXXXX, shown with the mask
    account_mask: Mapped[str | None] = mapped_column(String(16))  # •••• 4821
    sealed: Mapped[str | None] = mapped_column(Text)  # holder, number and bank, encrypted (security.payout_keys)

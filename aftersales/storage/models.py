"""SQLAlchemy 2 models; Alembic migrations must match them (a test checks)."""

from datetime import datetime

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from aftersales.domain.calls import OUTCOMES
from aftersales.domain.enums import (
    CLOSED_STATUSES,
    Channel,
    EventType,
    OrderStatus,
    PaymentMethod,
    ReasonCode,
    RefundMethod,
    TicketKind,
    TicketStatus,
    Tier,
)
from aftersales.storage.base import Base as Base  # re-exported: its metadata holds the tables defined here
from aftersales.storage.base import UtcDateTime, listed, one_of
from aftersales.storage.payout_rows import PayoutRequest as PayoutRequest  # re-exported: its table is in this metadata


def open_ticket_condition(prefix: str = "") -> str:
    """SQL that holds for tickets not in one of the domain's closed statuses (`prefix`: a table alias and dot)."""
    return f"{prefix}status NOT IN ({listed(CLOSED_STATUSES)})"


# Migration 0003 wrote this same text for the partial unique index; a test keeps the two identical.
OPEN_TICKET_CONDITION = open_ticket_condition()


class Customer(Base):
    """A shopper."""

    __tablename__ = "customers"
    # Lookups find a customer by phone (after_sales_find_orders); the email's unique index serves email lookups.
    __table_args__ = (one_of("tier", Tier), Index("ix_customers_phone", "phone"))

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    email: Mapped[str] = mapped_column(String(200), unique=True)
    phone: Mapped[str] = mapped_column(String(32))
    tier: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class Category(Base):
    """A product category and its return policy."""

    __tablename__ = "categories"
    __table_args__ = (
        CheckConstraint("return_window_days >= 0", name="return_window_non_negative"),
        CheckConstraint("restocking_fee_bps BETWEEN 0 AND 10000", name="restocking_fee_bps_range"),
    )

    code: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    return_window_days: Mapped[int] = mapped_column(Integer)
    restocking_fee_bps: Mapped[int] = mapped_column(Integer)


class Product(Base):
    """Something the shop sells."""

    __tablename__ = "products"
    __table_args__ = (
        CheckConstraint("price_minor >= 0", name="price_non_negative"),
        CheckConstraint("warranty_months >= 0", name="warranty_non_negative"),
    )

    sku: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(160))
    category_code: Mapped[str] = mapped_column(ForeignKey("categories.code"), index=True)
    price_minor: Mapped[int] = mapped_column(Integer)
    currency: Mapped[str] = mapped_column(String(3))
    warranty_months: Mapped[int] = mapped_column(Integer)
    returnable: Mapped[bool] = mapped_column(Boolean)
    repairable: Mapped[bool] = mapped_column(Boolean)

    category: Mapped[Category] = relationship(lazy="joined")


class Order(Base):
    """A customer's order."""

    __tablename__ = "orders"
    __table_args__ = (
        one_of("channel", Channel),
        one_of("payment_method", PaymentMethod),
        one_of("status", OrderStatus),
        CheckConstraint("shipping_fee_minor >= 0", name="shipping_fee_non_negative"),
        CheckConstraint("discount_minor >= 0", name="discount_non_negative"),
        Index("ix_orders_customer_id_placed_at", "customer_id", "placed_at"),
    )

    id: Mapped[str] = mapped_column(String(20), primary_key=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"))
    channel: Mapped[str] = mapped_column(String(16))
    payment_method: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), index=True)
    currency: Mapped[str] = mapped_column(String(3))
    placed_at: Mapped[datetime] = mapped_column(UtcDateTime)
    shipped_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    delivered_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    shipping_fee_minor: Mapped[int] = mapped_column(Integer)
    discount_minor: Mapped[int] = mapped_column(Integer)

    lines: Mapped[list["OrderLine"]] = relationship(order_by="OrderLine.line_no", back_populates="order")


class OrderLine(Base):
    """One product line of an order."""

    __tablename__ = "order_lines"
    __table_args__ = (
        CheckConstraint("line_no >= 1", name="line_no_positive"),
        CheckConstraint("quantity >= 1", name="quantity_positive"),
        CheckConstraint("unit_price_minor >= 0", name="unit_price_non_negative"),
        CheckConstraint("discount_minor >= 0 AND discount_minor <= unit_price_minor * quantity", name="discount_range"),
    )

    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), primary_key=True)
    line_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    sku: Mapped[str] = mapped_column(ForeignKey("products.sku"), index=True)
    quantity: Mapped[int] = mapped_column(Integer)
    unit_price_minor: Mapped[int] = mapped_column(Integer)
    discount_minor: Mapped[int] = mapped_column(Integer)

    order: Mapped[Order] = relationship(back_populates="lines")
    product: Mapped[Product] = relationship(lazy="joined")


class Ticket(Base):
    """An after-sales ticket (售后单) for one order line."""

    __tablename__ = "tickets"
    __table_args__ = (
        ForeignKeyConstraint(["order_id", "line_no"], ["order_lines.order_id", "order_lines.line_no"]),
        one_of("kind", TicketKind),
        one_of("status", TicketStatus),
        one_of("reason_code", ReasonCode),
        one_of("refund_method", RefundMethod, nullable=True),
        one_of("channel", Channel, nullable=True),
        CheckConstraint("quantity >= 1", name="quantity_positive"),
        CheckConstraint("item_amount_minor >= 0", name="item_amount_non_negative"),
        CheckConstraint("restocking_fee_minor >= 0", name="restocking_fee_non_negative"),
        CheckConstraint("shipping_refund_minor >= 0", name="shipping_refund_non_negative"),
        CheckConstraint(
            "refund_total_minor = item_amount_minor - restocking_fee_minor + shipping_refund_minor",
            name="refund_total_adds_up",
        ),
        CheckConstraint("refund_total_minor >= 0", name="refund_total_non_negative"),
        Index("ix_tickets_order_id_line_no", "order_id", "line_no"),
        Index("ix_tickets_customer_id_created_at", "customer_id", "created_at"),
        # At most one open ticket per order line, enforced by the database even under concurrent creates.
        Index(
            "uq_tickets_open_order_line",
            "order_id",
            "line_no",
            unique=True,
            sqlite_where=text(OPEN_TICKET_CONDITION),
            postgresql_where=text(OPEN_TICKET_CONDITION),
        ),
    )

    id: Mapped[str] = mapped_column(String(20), primary_key=True)
    order_id: Mapped[str] = mapped_column(String(20))
    line_no: Mapped[int] = mapped_column(Integer)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"))
    quantity: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(24))
    reason_code: Mapped[str] = mapped_column(String(24))
    description: Mapped[str] = mapped_column(Text)
    refund_method: Mapped[str | None] = mapped_column(String(24))
    currency: Mapped[str] = mapped_column(String(3))
    item_amount_minor: Mapped[int] = mapped_column(Integer)
    restocking_fee_minor: Mapped[int] = mapped_column(Integer)
    shipping_refund_minor: Mapped[int] = mapped_column(Integer)
    refund_total_minor: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(24), index=True)
    channel: Mapped[str | None] = mapped_column(String(16))  # where it was raised; NULL when the caller did not say
    created_by: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)

    line: Mapped[OrderLine] = relationship(lazy="joined")


class TicketEvent(Base):
    """One entry in a ticket's timeline."""

    __tablename__ = "ticket_events"
    __table_args__ = (
        one_of("type", EventType),
        one_of("channel", Channel, nullable=True),
        Index("ix_ticket_events_ticket_id_occurred_at", "ticket_id", "occurred_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    ticket_id: Mapped[str] = mapped_column(ForeignKey("tickets.id"))
    occurred_at: Mapped[datetime] = mapped_column(UtcDateTime)
    type: Mapped[str] = mapped_column(String(32))
    actor: Mapped[str] = mapped_column(String(64))
    note: Mapped[str] = mapped_column(Text, default="")
    channel: Mapped[str | None] = mapped_column(String(16))  # where the call that made it came from, when said


class TicketSequence(Base):
    """The last ticket number handed out per year (T-YYYY-NNNN)."""

    __tablename__ = "ticket_sequences"
    __table_args__ = (CheckConstraint("last_value >= 0", name="last_value_non_negative"),)

    year: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    last_value: Mapped[int] = mapped_column(Integer)


class Quote(Base):
    """A refund estimate pinned for its owner until it expires (a handle, not business state)."""

    __tablename__ = "quotes"
    __table_args__ = (
        one_of("reason_code", ReasonCode),
        CheckConstraint("quantity >= 1", name="quantity_positive"),
        CheckConstraint("item_amount_minor >= 0", name="item_amount_non_negative"),
        CheckConstraint("restocking_fee_minor >= 0", name="restocking_fee_non_negative"),
        CheckConstraint("shipping_refund_minor >= 0", name="shipping_refund_non_negative"),
        CheckConstraint(
            "total_minor = item_amount_minor - restocking_fee_minor + shipping_refund_minor", name="total_adds_up"
        ),
        CheckConstraint("expires_at > created_at", name="expires_after_creation"),
        ForeignKeyConstraint(["order_id", "line_no"], ["order_lines.order_id", "order_lines.line_no"]),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    owner: Mapped[str] = mapped_column(String(64))
    order_id: Mapped[str] = mapped_column(String(20))
    line_no: Mapped[int] = mapped_column(Integer)
    quantity: Mapped[int] = mapped_column(Integer)
    reason_code: Mapped[str] = mapped_column(String(24))
    currency: Mapped[str] = mapped_column(String(3))
    item_amount_minor: Mapped[int] = mapped_column(Integer)
    restocking_fee_minor: Mapped[int] = mapped_column(Integer)
    shipping_refund_minor: Mapped[int] = mapped_column(Integer)
    total_minor: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime, index=True)


class IdempotencyRecord(Base):
    """One intended ticket: the caller's key, the first call's arguments and the stored result."""

    __tablename__ = "idempotency_records"
    __table_args__ = (UniqueConstraint("caller", "tool", "key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    caller: Mapped[str] = mapped_column(String(64))
    tool: Mapped[str] = mapped_column(String(64))
    key: Mapped[str] = mapped_column(String(64))
    arguments: Mapped[str] = mapped_column(Text)
    result: Mapped[str | None] = mapped_column(Text)
    ticket_id: Mapped[str | None] = mapped_column(ForeignKey("tickets.id"))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime, index=True)


class ToolCall(Base):
    """One tools/call as the audit saw it."""

    __tablename__ = "tool_calls"
    __table_args__ = (
        one_of("outcome", OUTCOMES),
        CheckConstraint("latency_ms >= 0", name="latency_non_negative"),
        Index("ix_tool_calls_tool_called_at", "tool", "called_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    called_at: Mapped[datetime] = mapped_column(UtcDateTime, index=True)
    caller: Mapped[str] = mapped_column(String(64))
    tool: Mapped[str] = mapped_column(String(64))
    arguments: Mapped[str] = mapped_column(Text)
    arguments_valid: Mapped[bool] = mapped_column(Boolean)
    outcome: Mapped[str] = mapped_column(String(16))
    error_kind: Mapped[str | None] = mapped_column(String(32))
    input_round: Mapped[int] = mapped_column(Integer)
    replayed: Mapped[bool] = mapped_column(Boolean)
    latency_ms: Mapped[float] = mapped_column(Float)

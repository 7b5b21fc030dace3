"""The rows the repositories return and take, and the one storage exception the services act on.

Every time in them is aware UTC: storage makes it so where it reads (SQLite hands times back without a zone).
"""

from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from aftersales.domain.tickets import Confirmation, TimelineEntry


class Conflict(Exception):
    """A constraint refused the write: a concurrent transaction got there first (the same key or order line)."""


class KeyResult(NamedTuple):
    """The idempotency record to complete, and the call's result as JSON (the ticket's number still a placeholder)."""

    caller: str
    tool: str
    key: str
    result: str


class TicketDetails(NamedTuple):
    """The fields a ticket view shows."""

    id: str
    order_id: str
    quantity: int
    kind: str
    status: str
    refund_method: str | None
    refund_total_minor: int
    currency: str
    created_at: datetime
    updated_at: datetime
    sku: str
    name: str
    channel: str | None  # where it was raised; None when the caller did not say


class TicketWithTimeline(NamedTuple):
    """A ticket's fields, its newest events oldest first, and how many events its timeline holds."""

    details: TicketDetails
    events: list[TimelineEntry]
    total: int


class LineFactsRow(NamedTuple):
    """An order line with everything policy needs: order, product, category, goods total, units held."""

    order_id: str
    customer_id: str
    order_status: str
    delivered_at: datetime | None
    payment_method: str
    currency: str
    shipping_fee_minor: int
    line_no: int | None  # None when the order has no such line
    quantity: int
    unit_price_minor: int
    discount_minor: int
    sku: str
    product_name: str
    returnable: bool
    repairable: bool
    warranty_months: int
    category_name: str
    return_window_days: int
    restocking_fee_bps: int
    order_goods_minor: int
    committed_quantity: int
    open_ticket_id: str | None


class OrderRow(NamedTuple):
    """An order as the lookups show it."""

    id: str
    customer_id: str
    channel: str
    payment_method: str
    status: str
    currency: str
    placed_at: datetime
    delivered_at: datetime | None


class LineName(NamedTuple):
    """One line of an order in words: its number, product name and quantity."""

    order_id: str
    line_no: int
    name: str
    quantity: int


@dataclass(frozen=True)
class PayoutRow:
    """One payout request as stored (the sealed account stays sealed)."""

    id: str
    caller: str
    idempotency_key: str
    arguments: str
    order_id: str
    line_no: int
    confirmation: Confirmation | None  # the column's CHECK admits only these
    status: str
    expires_at: datetime
    reference: str | None
    account_mask: str | None
    sealed: str | None


class ToolFigures(NamedTuple):
    """One tool's counts and latency percentiles over a period."""

    tool: str
    calls: int
    valid: int  # calls whose arguments passed validation
    failed: int  # tool errors and protocol errors
    resumed: int  # input_required retries
    replays: int  # idempotent replays
    repeats: int  # repeats after a failure (domain.calls.repeats_failure)
    p50: float
    p95: float

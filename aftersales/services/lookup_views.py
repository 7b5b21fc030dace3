"""What the lookup tools return: pages of orders and tickets, and one order with what each line allows now."""

from typing import Any

from pydantic import BaseModel, Field

from aftersales.domain.enums import Channel, OrderStatus, PaymentMethod, RefundMethod, TicketKind
from aftersales.domain.rule_codes import RuleCode
from aftersales.security.cursors import CURSOR_EXAMPLE
from aftersales.services.views import TicketSummary


def next_cursor() -> Any:
    """The field every page has: where the next page starts."""
    return Field(
        description="Pass it as cursor, with the same other arguments, for the next page; null on the last page.",
        examples=[CURSOR_EXAMPLE],
    )


class OrderSummary(BaseModel):
    """One order in a customer's list."""

    order_id: str = Field(description="The order number.", examples=["O-2026-001423"])
    customer_id: str = Field(description="The customer who placed it.", examples=["C-00001"])
    placed_at: str = Field(description="When it was placed, ISO 8601 UTC.", examples=["2026-11-23T18:00:00Z"])
    delivered_at: str | None = Field(
        description="When it was delivered, ISO 8601 UTC; null while not delivered.", examples=["2026-11-27T09:30:00Z"]
    )
    status: OrderStatus = Field(description="pending (paid, not shipped), shipped, delivered or cancelled.")
    channel: Channel = Field(description="Where it was placed: app, web or miniprogram.")
    items: str = Field(
        description="Its lines in one line of words, with line numbers and quantities.",
        examples=["line 1: Lenovo ThinkPad X1 Carbon Gen 12 x1"],
    )


class OrdersPage(BaseModel):
    """One page of a customer's orders, newest first."""

    orders: list[OrderSummary] = Field(description="The orders of this page, newest first.")
    next_cursor: str | None = next_cursor()
    next_step: str = Field(description="What to do with this page, in plain words.")


class KindOption(BaseModel):
    """Whether a ticket of one kind can be opened on a line now, and if not, why."""

    kind: TicketKind = Field(description="The ticket kind.")
    possible: bool = Field(description="Whether after_sales_create_ticket accepts this kind for the line now.")
    why_not: str | None = Field(
        description="Why it is not possible, in the words the create and estimate tools refuse with; null when "
        "possible.",
        examples=[
            "The return window for order O-2026-000847 line 1 closed on 2026-10-16. Laptops can be returned "
            "within 15 days of delivery."
        ],
    )
    why_not_code: RuleCode | None = Field(
        description="The code of the rule the create and estimate tools refuse with (the policy resource lists "
        "them); null when possible.",
        examples=["return_window_closed"],
    )


class LineView(BaseModel):
    """One order line and what after-sales allows for it now."""

    line_no: int = Field(ge=1, description="The line number to pass as line_no.", examples=[1])
    sku: str = Field(description="Product SKU.", examples=["LAP-001"])
    name: str = Field(description="Product name.", examples=["Lenovo ThinkPad X1 Carbon Gen 12"])
    category: str = Field(description="Product category.", examples=["Laptops"])
    quantity: int = Field(ge=1, description="Units bought.", examples=[1])
    paid: int = Field(ge=0, description="What the line was paid, minor units (fen for CNY).", examples=[1299900])
    paid_display: str = Field(description="The amount paid, formatted for people.", examples=["¥12,999.00"])
    units_held: int = Field(
        ge=0, description="Units an open ticket or a completed refund already covers.", examples=[0]
    )
    units_available: int = Field(
        ge=0, description="Units a new ticket may cover (quantity for create and estimate: at most this).", examples=[1]
    )
    return_window_ends: str | None = Field(
        description="When returns, refunds and exchanges stop, ISO 8601 UTC; null before delivery.",
        examples=["2026-12-12T09:30:00Z"],
    )
    warranty_ends: str | None = Field(
        description="When free warranty repairs stop, ISO 8601 UTC; null before delivery.",
        examples=["2028-11-27T09:30:00Z"],
    )
    open_ticket_id: str | None = Field(
        description="The line's open ticket, if it has one (after_sales_query_ticket shows it).", examples=[None]
    )
    options: list[KindOption] = Field(description="Every ticket kind, possible or not, with the reason.")


class OrderView(BaseModel):
    """One order with every line, and for each line what after-sales allows now."""

    order_id: str = Field(description="The order number.", examples=["O-2026-001423"])
    customer_id: str = Field(description="The customer who placed it.", examples=["C-00001"])
    status: OrderStatus = Field(description="pending (paid, not shipped), shipped, delivered or cancelled.")
    channel: Channel = Field(description="Where it was placed: app, web or miniprogram.")
    payment_method: PaymentMethod = Field(description="How it was paid: card, wallet, gift_card or cash_on_delivery.")
    refund_methods_allowed: list[RefundMethod] = Field(description="Where a refund of this order may be paid.")
    currency: str = Field(description="ISO 4217 currency code of every amount.", examples=["CNY"])
    placed_at: str = Field(description="When it was placed, ISO 8601 UTC.", examples=["2026-11-23T18:00:00Z"])
    delivered_at: str | None = Field(
        description="When it was delivered, ISO 8601 UTC; null while not delivered.", examples=["2026-11-27T09:30:00Z"]
    )
    as_of: str = Field(
        description="The moment the options were worked out, ISO 8601 UTC; windows close as time passes.",
        examples=["2026-11-30T10:00:00Z"],
    )
    lines: list[LineView] = Field(description="Every line, in line order.")
    next_step: str = Field(description="What to do next, in plain words.")


class TicketsPage(BaseModel):
    """One page of the tickets of a customer or an order, newest first."""

    tickets: list[TicketSummary] = Field(description="The tickets of this page, newest first.")
    next_cursor: str | None = next_cursor()
    next_step: str = Field(description="What to do with this page, in plain words.")

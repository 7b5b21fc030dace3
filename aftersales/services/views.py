"""What the tools return: pydantic models whose JSON Schema is each tool's outputSchema."""

from typing import Annotated, Literal

from pydantic import BaseModel, Field, WithJsonSchema

from aftersales.domain.enums import Channel, ReasonCode, RefundMethod, Stage, TicketKind, TicketStatus


class ItemView(BaseModel):
    """The product and quantity a ticket covers."""

    sku: str = Field(description="Product SKU.", examples=["LAP-001"])
    name: str = Field(description="Product name.", examples=["Lenovo ThinkPad X1 Carbon Gen 12"])
    quantity: int = Field(ge=1, description="Units covered by the ticket.", examples=[1])


# Published inline as the enum's values, titled like any plain field, as the output schema has always shown it
# (an enum field would otherwise point to a $defs entry and lose its title).
InlineRefundMethod = Annotated[
    RefundMethod, WithJsonSchema({"enum": [m.value for m in RefundMethod], "type": "string"})
]

# Inline and titled like the method, for the same reason.
InlineChannel = Annotated[Channel, WithJsonSchema({"enum": [c.value for c in Channel], "type": "string"})]


class RefundView(BaseModel):
    """Money paid back, in minor units plus a display string."""

    amount: int = Field(ge=0, description="Refund total in minor units (fen for CNY).", examples=[129900])
    currency: str = Field(description="ISO 4217 currency code.", examples=["CNY"])
    method: InlineRefundMethod | None = Field(
        title="Method", description="Where the money goes; null when not chosen yet.", examples=["original_payment"]
    )
    display: str = Field(description="The amount formatted for people.", examples=["¥1,299.00"])


class EventView(BaseModel):
    """One timeline entry."""

    at: str = Field(description="When it happened, ISO 8601 UTC.", examples=["2026-11-27T09:30:00Z"])
    event: str = Field(description="What happened.", examples=["return_label_sent"])
    actor: str = Field(description="Who did it: customer, agent, system, warehouse, workshop.", examples=["system"])
    note: str = Field(description="Plain-words detail.", examples=["Prepaid return label sent to the customer."])
    channel: InlineChannel | None = Field(
        title="Channel",
        description="Where the call that recorded it came from: app, web or miniprogram; null when it did not say "
        "or no call recorded it.",
        examples=["app"],
    )


class TicketSummary(BaseModel):
    """A ticket in a list: where it stands and what happens next."""

    ticket_id: str = Field(description="Ticket number.", examples=["T-2026-0042"])
    order_id: str = Field(description="Order the ticket belongs to.", examples=["O-2026-000123"])
    item: ItemView
    kind: TicketKind = Field(description="What the customer asked for.")
    status: TicketStatus = Field(description="Internal status.")
    stage: Stage = Field(description="Customer-facing stage: review, awaiting_return, repair, refund or closed.")
    refund: RefundView | None = Field(description="Refund for refund kinds; null for exchanges and repairs.")
    channel: InlineChannel | None = Field(
        title="Channel",
        description="Where the customer raised it: app, web or miniprogram; null when unknown.",
        examples=["app"],
    )
    created_at: str = Field(description="Opened at, ISO 8601 UTC.", examples=["2026-11-26T08:00:00Z"])
    updated_at: str = Field(description="Last change, ISO 8601 UTC.", examples=["2026-11-27T09:30:00Z"])
    next_step: str = Field(
        description="What happens next and by when, in plain words.",
        examples=["The customer ships the item back with the prepaid label by 2026-12-11."],
    )


class TicketView(TicketSummary):
    """A ticket as the customer-service agent needs it."""

    timeline: list[EventView] = Field(description="The latest 10 events, oldest first.")
    timeline_total: int = Field(ge=0, description="How many events the whole timeline has.", examples=[4])


class QuoteView(BaseModel):
    """A refund estimate for one order line, pinned as a quote handle."""

    quote_id: str = Field(
        description="Handle of this quote (UUID). Pass it to after_sales_create_ticket to lock the amount.",
        examples=["6f1c2a9e-4b7d-4e0a-9c3f-2d5e8a1b7c40"],
    )
    expires_at: str = Field(
        description="When the quote stops being usable, ISO 8601 UTC.", examples=["2026-11-30T14:32:00Z"]
    )
    order_id: str = Field(description="The order estimated.", examples=["O-2026-001423"])
    line_no: int = Field(ge=1, description="The order line estimated.", examples=[1])
    quantity: int = Field(ge=1, description="Units estimated.", examples=[1])
    reason_code: ReasonCode = Field(description="The reason the estimate assumes.")
    item: ItemView
    item_amount: int = Field(ge=0, description="Unit price x quantity less the line's discount share, minor units.")
    restocking_fee: int = Field(ge=0, description="Deducted on returns that are not the shop's fault, minor units.")
    shipping_refund: int = Field(ge=0, description="Shipping paid back when the shop is at fault, minor units.")
    total: int = Field(ge=0, description="item_amount - restocking_fee + shipping_refund, minor units.")
    currency: str = Field(description="ISO 4217 currency code of every amount.", examples=["CNY"])
    total_display: str = Field(description="The total formatted for people.", examples=["¥1,299.00"])
    refund_methods_allowed: list[RefundMethod] = Field(description="Where this refund may be paid.")
    policy_notes: list[str] = Field(description="The policy behind the numbers, in plain words for the customer.")


class CreateResult(BaseModel):
    """The outcome of after_sales_create_ticket."""

    outcome: Literal["created", "replayed", "not_created"] = Field(
        description="created: a new ticket; replayed: this idempotency_key already created it (nothing new); "
        "not_created: the customer declined or cancelled, nothing was stored."
    )
    ticket: TicketView | None = Field(
        default=None, description="The ticket, exactly as after_sales_query_ticket shows it; absent when not created."
    )
    reason: str | None = Field(default=None, description="Why no ticket was created (not_created only).")
    next_step: str = Field(description="What to tell the customer or do next, in plain words.")


class CancelResult(BaseModel):
    """The outcome of after_sales_cancel_ticket."""

    outcome: Literal["cancelled", "replayed", "not_cancelled"] = Field(
        description="cancelled: the ticket is now closed as cancelled; replayed: this idempotency_key already "
        "cancelled it (nothing new); not_cancelled: the customer declined or cancelled the confirmation, nothing "
        "changed."
    )
    ticket: TicketView = Field(
        description="The ticket exactly as after_sales_query_ticket shows it: cancelled, or unchanged when "
        "not_cancelled."
    )
    reason: str | None = Field(default=None, description="Why nothing was cancelled (not_cancelled only).")
    next_step: str = Field(description="What to tell the customer or do next, in plain words.")

"""Whether an order line can be refunded, returned, exchanged or repaired now, and for how many units."""

from dataclasses import dataclass
from datetime import datetime

from aftersales.domain.creation import check_no_open_ticket
from aftersales.domain.enums import OrderStatus, PaymentMethod, ReasonCode, RefundMethod, TicketKind
from aftersales.domain.errors import RuleViolation
from aftersales.domain.money import format_money
from aftersales.domain.policy import REFUND_METHODS, return_window_closes, warranty_ends
from aftersales.domain.refunds import Breakdown, LineFacts, seller_at_fault
from aftersales.domain.rule_codes import RuleCode


@dataclass(frozen=True)
class LineContext:
    """Everything policy needs to know about one order line, free of storage types."""

    order_id: str
    line_no: int
    customer_id: str
    order_status: OrderStatus
    delivered_at: datetime | None
    payment_method: PaymentMethod
    currency: str
    sku: str
    product_name: str
    category_name: str
    returnable: bool
    repairable: bool
    return_window_days: int
    warranty_months: int
    facts: LineFacts
    committed_quantity: int  # units its tickets hold (policy.holds_units)
    open_ticket_id: str | None  # the line's open ticket, if it has one

    @property
    def returnable_quantity(self) -> int:
        """Units bought that no open or completed ticket covers yet."""
        return max(0, self.facts.quantity - self.committed_quantity)

    @property
    def window_closes(self) -> datetime | None:
        """When the return window ends (None before delivery)."""
        return return_window_closes(self.delivered_at, self.return_window_days) if self.delivered_at else None

    @property
    def warranty_ends(self) -> datetime | None:
        """When the manufacturer's warranty ends (None before delivery)."""
        return warranty_ends(self.delivered_at, self.warranty_months) if self.delivered_at else None


def _day(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d")


def check_delivered(line: LineContext) -> None:
    """Refuse lines whose order has not been delivered."""
    if line.order_status is OrderStatus.DELIVERED:
        return
    if line.order_status is OrderStatus.CANCELLED:
        raise RuleViolation(
            RuleCode.ORDER_CANCELLED,
            f"Order {line.order_id} was cancelled, so it has nothing to return or refund.",
            "After-sales service covers delivered orders; a cancelled order's payment is released automatically.",
            "Do not retry; tell the customer the cancellation already returns their payment.",
        )
    raise RuleViolation(
        RuleCode.ORDER_NOT_DELIVERED,
        f"Order {line.order_id} has not been delivered yet (status: {line.order_status}).",
        "Refunds, returns, exchanges and repairs start once an order is delivered.",
        "Do not retry now; tell the customer to wait for delivery, or to refuse the parcel at the door.",
    )


def check_window(line: LineContext, kind: TicketKind, now: datetime) -> None:
    """Refuse returns outside the return window, and repairs outside the warranty."""
    assert line.window_closes is not None and line.warranty_ends is not None  # checked by check_delivered
    warranty_open = line.repairable and now < line.warranty_ends
    if kind is TicketKind.REPAIR:
        if not line.repairable:
            raise RuleViolation(
                RuleCode.ITEM_NOT_REPAIRABLE,
                f"{line.product_name} ({line.sku}) cannot be repaired by the shop.",
                f"Products in {line.category_name} like this one are not serviced.",
                "Do not retry unchanged; if it arrived faulty inside the return window, estimate a refund instead.",
            )
        if not warranty_open:
            raise RuleViolation(
                RuleCode.WARRANTY_ENDED,
                f"The warranty of {line.product_name} on order {line.order_id} ended on {_day(line.warranty_ends)}.",
                f"Repairs are free within the {line.warranty_months}-month warranty after delivery.",
                "Do not retry; tell the customer the warranty has ended.",
            )
        return
    if not line.returnable:
        raise RuleViolation(
            RuleCode.ITEM_NOT_RETURNABLE,
            f"{line.product_name} ({line.sku}) cannot be returned once delivered.",
            f"Items of this kind in {line.category_name} are excluded from returns for hygiene or safety.",
            "Do not retry unchanged; "
            + ("a warranty repair is possible (kind repair)." if warranty_open else "no after-sales option remains."),
        )
    if now >= line.window_closes:
        repair = (
            f"A warranty repair is still possible until {_day(line.warranty_ends)} (kind repair)."
            if warranty_open
            else "No warranty repair is possible either."
        )
        raise RuleViolation(
            RuleCode.RETURN_WINDOW_CLOSED,
            f"The return window for order {line.order_id} line {line.line_no} closed on {_day(line.window_closes)}.",
            f"{line.category_name} can be returned within {line.return_window_days} days of delivery.",
            f"Do not retry for a refund or exchange. {repair}",
        )


def check_quantity(line: LineContext, quantity: int) -> None:
    """Refuse more units than remain returnable."""
    if quantity <= line.returnable_quantity:
        return
    raise RuleViolation(
        RuleCode.QUANTITY_NOT_AVAILABLE,
        f"Quantity {quantity} is more than the {line.returnable_quantity} unit(s) of {line.sku} still available "
        f"for after-sales service on order {line.order_id} line {line.line_no}.",
        f"The customer bought {line.facts.quantity}; {line.committed_quantity} are in open tickets or already "
        "refunded.",
        f"Ask the customer how many of the remaining {line.returnable_quantity} unit(s) they mean, then call again.",
    )


def check_ticket(line: LineContext, kind: TicketKind, quantity: int, now: datetime) -> None:
    """Refuse, with the first rule it breaks, a `kind` ticket for `quantity` units of the line at `now`."""
    check_delivered(line)
    check_window(line, kind, now)
    check_no_open_ticket(line.open_ticket_id, line.order_id, line.line_no)
    check_quantity(line, quantity)


def check_estimate(line: LineContext, quantity: int, now: datetime) -> None:
    """Refuse, with the first rule it breaks, an estimate of returning `quantity` units of the line at `now`.

    An estimate is the first step of a refund ticket, so it checks exactly what opening one checks: a quote for a
    line that cannot get a ticket now (an open one holds it, say) would only be refused later.
    """
    check_ticket(line, TicketKind.RETURN_AND_REFUND, quantity, now)


def ticket_options(line: LineContext, now: datetime) -> dict[TicketKind, RuleViolation | None]:
    """For each kind, None when a ticket for one unit of the line can be opened at `now`, else the rule it breaks.

    The same checks as opening a ticket, so what a line is said to allow is what creation accepts.
    """
    options: dict[TicketKind, RuleViolation | None] = {}
    for kind in TicketKind:
        try:
            check_ticket(line, kind, 1, now)
            options[kind] = None
        except RuleViolation as refusal:
            options[kind] = refusal
    return options


def allowed_refund_methods(payment: PaymentMethod) -> list[RefundMethod]:
    """Where a refund may go: gift-card payments come back as store credit only (policy.REFUND_METHODS)."""
    return list(REFUND_METHODS[payment])


def policy_notes(line: LineContext, reason: ReasonCode, breakdown: Breakdown) -> list[str]:
    """The policy behind an estimate, in plain words for the customer."""
    assert line.window_closes is not None
    notes = [
        f"{line.category_name} can be returned within {line.return_window_days} days of delivery; "
        f"this order's window closes on {_day(line.window_closes)}."
    ]
    if breakdown.restocking_fee_minor:
        percent = line.facts.restocking_fee_bps / 100
        notes.append(
            f"A restocking fee of {percent:g}% ({format_money(breakdown.restocking_fee_minor, line.currency)}) "
            f"applies because the reason ({reason}) is not a fault of the shop."
        )
    if not line.facts.shipping_fee_minor:
        # Whoever is at fault, free shipping leaves nothing to refund; saying it is refunded would promise money.
        notes.append("The order had no shipping fee, so there is no shipping to refund.")
    elif seller_at_fault(reason):
        notes.append(f"Shipping is refunded in proportion because the reason ({reason}) is the shop's fault.")
    else:
        notes.append("Shipping is not refunded when the shop is not at fault.")
    if line.payment_method is PaymentMethod.GIFT_CARD:
        notes.append("The order was paid by gift card, so the refund goes to store credit.")
    if line.payment_method is PaymentMethod.CASH_ON_DELIVERY:
        notes.append(
            "The order was paid in cash on delivery, so the refund goes by bank transfer (the customer gives the "
            "account on the shop's own page, never in the chat) or to store credit."
        )
    return notes

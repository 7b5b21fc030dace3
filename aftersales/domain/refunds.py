"""Refund arithmetic in integer minor units, per the shop's policy."""

from dataclasses import dataclass
from typing import cast

from aftersales.domain.arithmetic import Number
from aftersales.domain.enums import ReasonCode, TicketKind
from aftersales.domain.policy import SELLER_AT_FAULT


def paid_minor(unit_price_minor: Number, quantity: Number, discount_minor: Number) -> Number:
    """What the customer paid for an order line: its units at their price, less the line's discount.

    Storage passes column expressions to build the same sum in SQL.
    """
    return cast(Number, unit_price_minor * quantity - discount_minor)


@dataclass(frozen=True)
class LineFacts:
    """What was bought and paid on one order line, and its order's shipping."""

    unit_price_minor: int
    quantity: int
    discount_minor: int
    order_goods_minor: int  # every line's paid amount, summed
    shipping_fee_minor: int
    restocking_fee_bps: int


@dataclass(frozen=True)
class Breakdown:
    """The parts of a refund; `total` is always their sum."""

    item_amount_minor: int
    restocking_fee_minor: int
    shipping_refund_minor: int

    @property
    def total_minor(self) -> int:
        """Item amount less the restocking fee plus the shipping refund."""
        return self.item_amount_minor - self.restocking_fee_minor + self.shipping_refund_minor


NO_REFUND = Breakdown(0, 0, 0)


def seller_at_fault(reason: ReasonCode) -> bool:
    """Whether the reason puts the fault with the shop."""
    return reason in SELLER_AT_FAULT


def compute_refund(line: LineFacts, quantity: int, reason: ReasonCode, kind: TicketKind) -> Breakdown:
    """The refund for `quantity` units of a line; exchanges and repairs refund nothing."""
    if not kind.refunds:
        return NO_REFUND
    # The line's discount is shared per unit, rounded up, so partial returns never add up to more than was paid.
    discount_share = -(-line.discount_minor * quantity // line.quantity)
    item = line.unit_price_minor * quantity - discount_share
    restocking = 0
    if not seller_at_fault(reason):
        restocking = item * line.restocking_fee_bps // 10_000
    shipping = 0
    if seller_at_fault(reason) and line.order_goods_minor > 0:
        # Shipping comes back in proportion to the goods returned, so several tickets never exceed the fee.
        shipping = line.shipping_fee_minor * item // line.order_goods_minor
    return Breakdown(item, restocking, shipping)

"""Refund arithmetic in integer minor units, per the shop's policy."""

from dataclasses import dataclass

from aftersales.domain.enums import ReasonCode, TicketKind

# Reasons where the shop, not the customer, caused the problem.
SELLER_AT_FAULT = frozenset(
    {
        ReasonCode.DAMAGED,
        ReasonCode.DEFECTIVE,
        ReasonCode.WRONG_ITEM,
        ReasonCode.NOT_AS_DESCRIBED,
        ReasonCode.MISSING_PARTS,
        ReasonCode.LATE_DELIVERY,
    }
)


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

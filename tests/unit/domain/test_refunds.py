"""The refund arithmetic of the shop's policy, in minor units."""

from dataclasses import replace

from aftersales.domain.enums import ReasonCode, TicketKind
from aftersales.domain.refunds import LineFacts, compute_refund

LINE = LineFacts(
    unit_price_minor=10000,
    quantity=3,
    discount_minor=3000,
    order_goods_minor=27000,
    shipping_fee_minor=1000,
    restocking_fee_bps=1000,
)


def test_a_no_fault_return_pays_the_discounted_item_less_a_restocking_fee_and_no_shipping():
    breakdown = compute_refund(LINE, 1, ReasonCode.NO_LONGER_NEEDED, TicketKind.RETURN_AND_REFUND)
    assert (breakdown.item_amount_minor, breakdown.restocking_fee_minor, breakdown.shipping_refund_minor) == (
        9000,
        900,
        0,
    )
    assert breakdown.total_minor == 8100


def test_a_seller_fault_refund_adds_the_returned_share_of_shipping_and_no_fee():
    breakdown = compute_refund(LINE, 3, ReasonCode.DAMAGED, TicketKind.RETURN_AND_REFUND)
    assert (breakdown.item_amount_minor, breakdown.restocking_fee_minor, breakdown.shipping_refund_minor) == (
        27000,
        0,
        1000,
    )


def test_exchanges_and_repairs_refund_nothing():
    for kind in (TicketKind.EXCHANGE, TicketKind.REPAIR):
        assert compute_refund(LINE, 1, ReasonCode.DEFECTIVE, kind).total_minor == 0


def test_a_refund_never_exceeds_what_was_paid_for_the_units_returned():
    odd = replace(
        LINE, unit_price_minor=999, quantity=7, discount_minor=101, order_goods_minor=6892, restocking_fee_bps=0
    )
    paid = 999 * 7 - 101
    refunded = sum(
        compute_refund(odd, 1, ReasonCode.DEFECTIVE, TicketKind.REFUND_ONLY).item_amount_minor for _ in range(7)
    )
    assert refunded <= paid
    assert compute_refund(odd, 7, ReasonCode.DEFECTIVE, TicketKind.REFUND_ONLY).item_amount_minor == paid

"""Whether an order line can be refunded, returned, exchanged or repaired now, and for how many units."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from aftersales.domain.eligibility import (
    LineContext,
    allowed_refund_methods,
    check_delivered,
    check_estimate,
    check_quantity,
    check_ticket,
    check_window,
    policy_notes,
    ticket_options,
)
from aftersales.domain.enums import OrderStatus, PaymentMethod, ReasonCode, RefundMethod, TicketKind
from aftersales.domain.refunds import LineFacts, compute_refund
from aftersales.domain.rule_codes import RuleCode
from tests.support.refusals import refused_by

DELIVERED = datetime(2026, 1, 31, 10, 0, tzinfo=UTC)
WINDOW_CLOSES = datetime(2026, 2, 15, 10, 0, tzinfo=UTC)  # 15 days after delivery
WARRANTY_ENDS = datetime(2026, 2, 28, 10, 0, tzinfo=UTC)  # one month after delivery, on February's last day
MOMENT = timedelta(microseconds=1)
RETURNS = [TicketKind.REFUND_ONLY, TicketKind.RETURN_AND_REFUND, TicketKind.EXCHANGE]
LINE = LineContext(
    order_id="O-2026-000123",
    line_no=1,
    customer_id="C-00001",
    order_status=OrderStatus.DELIVERED,
    delivered_at=DELIVERED,
    payment_method=PaymentMethod.CARD,
    currency="CNY",
    sku="LAP-001",
    product_name="ThinkPad X1",
    category_name="Laptops",
    returnable=True,
    repairable=True,
    return_window_days=15,
    warranty_months=1,
    facts=LineFacts(
        unit_price_minor=129900,
        quantity=3,
        discount_minor=0,
        order_goods_minor=389700,
        shipping_fee_minor=1000,
        restocking_fee_bps=1000,
    ),
    committed_quantity=0,
    open_ticket_id=None,
)


def refused(code: RuleCode, check, *args) -> str:
    """The message of the RuleViolation by the rule `code` that `check(*args)` raises."""
    with refused_by(code) as violation:
        check(*args)
    return str(violation.value)


def test_the_return_window_and_the_warranty_run_from_delivery():
    # Storage reads every time back as aware UTC (tests/integration/test_repositories.py), so the rules take them as
    # they are.
    assert (LINE.window_closes, LINE.warranty_ends) == (WINDOW_CLOSES, WARRANTY_ENDS)
    not_delivered = replace(LINE, order_status=OrderStatus.SHIPPED, delivered_at=None)
    assert (not_delivered.window_closes, not_delivered.warranty_ends) == (None, None)


def test_only_a_delivered_order_is_served_and_a_cancelled_one_says_its_payment_comes_back():
    check_delivered(LINE)
    cancelled = refused(RuleCode.ORDER_CANCELLED, check_delivered, replace(LINE, order_status=OrderStatus.CANCELLED))
    assert "O-2026-000123 was cancelled" in cancelled and "returns their payment" in cancelled
    for status in (OrderStatus.PENDING, OrderStatus.SHIPPED):
        waiting = refused(
            RuleCode.ORDER_NOT_DELIVERED, check_delivered, replace(LINE, order_status=status, delivered_at=None)
        )
        assert f"has not been delivered yet (status: {status})" in waiting and "wait for delivery" in waiting


@pytest.mark.parametrize("kind", RETURNS)
def test_a_return_or_exchange_is_accepted_until_the_moment_the_window_closes_then_a_repair_is_offered(kind):
    check_window(LINE, kind, WINDOW_CLOSES - MOMENT)
    text = refused(RuleCode.RETURN_WINDOW_CLOSED, check_window, LINE, kind, WINDOW_CLOSES)
    assert "order O-2026-000123 line 1 closed on 2026-02-15" in text
    assert "Laptops can be returned within 15 days of delivery" in text
    assert "A warranty repair is still possible until 2026-02-28 (kind repair)" in text


def test_past_the_window_and_the_warranty_no_repair_is_offered_either():
    text = refused(RuleCode.RETURN_WINDOW_CLOSED, check_window, LINE, TicketKind.RETURN_AND_REFUND, WARRANTY_ENDS)
    assert "closed on 2026-02-15" in text and "No warranty repair is possible either" in text
    unserviced = refused(
        RuleCode.RETURN_WINDOW_CLOSED,
        check_window,
        replace(LINE, repairable=False),
        TicketKind.RETURN_AND_REFUND,
        WINDOW_CLOSES,
    )
    assert "No warranty repair is possible either" in unserviced


def test_a_repair_is_accepted_after_the_return_window_until_the_moment_the_warranty_ends():
    check_window(LINE, TicketKind.REPAIR, WINDOW_CLOSES)
    check_window(LINE, TicketKind.REPAIR, WARRANTY_ENDS - MOMENT)
    text = refused(RuleCode.WARRANTY_ENDED, check_window, LINE, TicketKind.REPAIR, WARRANTY_ENDS)
    assert "The warranty of ThinkPad X1 on order O-2026-000123 ended on 2026-02-28" in text
    assert "Repairs are free within the 1-month warranty after delivery" in text


def test_a_product_the_shop_does_not_service_is_never_repaired():
    text = refused(
        RuleCode.ITEM_NOT_REPAIRABLE, check_window, replace(LINE, repairable=False), TicketKind.REPAIR, DELIVERED
    )
    assert "ThinkPad X1 (LAP-001) cannot be repaired by the shop" in text and "estimate a refund instead" in text


@pytest.mark.parametrize("kind", RETURNS)
def test_a_non_returnable_item_is_refused_at_once_and_a_repair_offered_only_while_one_is_possible(kind):
    sealed = replace(LINE, returnable=False)
    text = refused(RuleCode.ITEM_NOT_RETURNABLE, check_window, sealed, kind, DELIVERED)
    assert "ThinkPad X1 (LAP-001) cannot be returned once delivered" in text
    assert "a warranty repair is possible (kind repair)" in text
    unserviced = refused(RuleCode.ITEM_NOT_RETURNABLE, check_window, replace(sealed, repairable=False), kind, DELIVERED)
    assert "no after-sales option remains" in unserviced
    assert "no after-sales option remains" in refused(
        RuleCode.ITEM_NOT_RETURNABLE, check_window, sealed, kind, WARRANTY_ENDS
    )


def test_only_the_units_no_ticket_holds_yet_can_be_claimed():
    held = replace(LINE, committed_quantity=1)
    assert held.returnable_quantity == 2
    check_quantity(held, 2)
    text = refused(RuleCode.QUANTITY_NOT_AVAILABLE, check_quantity, held, 3)
    assert "Quantity 3 is more than the 2 unit(s) of LAP-001 still available" in text
    assert "The customer bought 3; 1 are in open tickets or already refunded" in text
    assert "remaining 2 unit(s)" in text
    assert replace(LINE, committed_quantity=5).returnable_quantity == 0


def test_a_gift_card_payment_is_refunded_as_store_credit_only():
    assert allowed_refund_methods(PaymentMethod.GIFT_CARD) == [RefundMethod.STORE_CREDIT]
    for payment in (PaymentMethod.CARD, PaymentMethod.WALLET):
        assert allowed_refund_methods(payment) == [RefundMethod.ORIGINAL_PAYMENT, RefundMethod.STORE_CREDIT]


def test_the_notes_of_a_change_of_mind_name_the_window_the_restocking_fee_and_no_shipping_refund():
    reason = ReasonCode.NO_LONGER_NEEDED
    notes = policy_notes(LINE, reason, compute_refund(LINE.facts, 1, reason, TicketKind.RETURN_AND_REFUND))
    assert notes == [
        "Laptops can be returned within 15 days of delivery; this order's window closes on 2026-02-15.",
        "A restocking fee of 10% (¥129.90) applies because the reason (no_longer_needed) is not a fault of the shop.",
        "Shipping is not refunded when the shop is not at fault.",
    ]


def test_the_notes_of_a_shop_fault_refund_shipping_charge_no_fee_and_say_where_a_gift_card_refund_goes():
    reason, gift = ReasonCode.DAMAGED, replace(LINE, payment_method=PaymentMethod.GIFT_CARD)
    notes = policy_notes(gift, reason, compute_refund(LINE.facts, 1, reason, TicketKind.RETURN_AND_REFUND))
    assert notes[1:] == [
        "Shipping is refunded in proportion because the reason (damaged) is the shop's fault.",
        "The order was paid by gift card, so the refund goes to store credit.",
    ]
    assert not any("restocking fee" in note for note in notes)


@pytest.mark.parametrize("reason", [ReasonCode.DAMAGED, ReasonCode.NO_LONGER_NEEDED])
def test_the_notes_of_an_order_that_shipped_free_say_there_is_no_shipping_to_refund(reason):
    free = replace(LINE, facts=replace(LINE.facts, shipping_fee_minor=0))
    breakdown = compute_refund(free.facts, 1, reason, TicketKind.RETURN_AND_REFUND)
    assert breakdown.shipping_refund_minor == 0
    notes = policy_notes(free, reason, breakdown)
    assert "The order had no shipping fee, so there is no shipping to refund." in notes
    assert not any(note.startswith("Shipping is") for note in notes)


NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def laptop(delivered_ago: timedelta, open_ticket_id: str | None = None, committed: int = 0) -> LineContext:
    """LINE delivered `delivered_ago` before NOW, with a 24-month warranty."""
    return replace(
        LINE,
        delivered_at=NOW - delivered_ago,
        warranty_months=24,
        committed_quantity=committed,
        open_ticket_id=open_ticket_id,
    )


def test_inside_the_window_every_kind_is_possible():
    assert ticket_options(laptop(timedelta(days=3)), NOW) == dict.fromkeys(TicketKind)


def test_past_the_window_only_a_warranty_repair_is_possible_and_the_others_say_why():
    options = ticket_options(laptop(timedelta(days=60)), NOW)
    assert options[TicketKind.REPAIR] is None
    for kind in RETURNS:
        assert options[kind].code is RuleCode.RETURN_WINDOW_CLOSED


def test_an_open_ticket_or_no_units_left_refuse_every_kind_as_creation_would():
    for line, code in (
        (laptop(timedelta(days=3), "T-2026-0042"), RuleCode.LINE_HAS_OPEN_TICKET),
        (laptop(timedelta(days=3), committed=LINE.facts.quantity), RuleCode.QUANTITY_NOT_AVAILABLE),
    ):
        options = ticket_options(line, NOW)
        for kind in TicketKind:
            assert str(options[kind]) == refused(code, check_ticket, line, kind, 1, NOW)


def test_an_undelivered_order_allows_nothing():
    pending = replace(laptop(timedelta(days=3)), order_status=OrderStatus.SHIPPED, delivered_at=None)
    refusals = ticket_options(pending, NOW).values()
    assert {refusal.code for refusal in refusals if refusal} == {RuleCode.ORDER_NOT_DELIVERED}


def test_an_estimate_is_refused_for_exactly_what_refuses_a_return_ticket_with_the_same_words():
    for line, code in (
        # units left, but an open ticket holds the line
        (laptop(timedelta(days=3), "T-2026-0042", committed=1), RuleCode.LINE_HAS_OPEN_TICKET),
        (laptop(timedelta(days=3), "T-2026-0042", committed=LINE.facts.quantity), RuleCode.LINE_HAS_OPEN_TICKET),
        (laptop(timedelta(days=3), committed=LINE.facts.quantity), RuleCode.QUANTITY_NOT_AVAILABLE),
        (laptop(timedelta(days=60)), RuleCode.RETURN_WINDOW_CLOSED),
        (
            replace(laptop(timedelta(days=3)), order_status=OrderStatus.CANCELLED, delivered_at=None),
            RuleCode.ORDER_CANCELLED,
        ),
    ):
        assert refused(code, check_estimate, line, 1, NOW) == refused(
            code, check_ticket, line, TicketKind.RETURN_AND_REFUND, 1, NOW
        )
    check_estimate(laptop(timedelta(days=3), committed=1), 2, NOW)

"""What one order line allows now, per kind: the same checks, in the same order, as opening a ticket."""

from datetime import UTC, datetime, timedelta

import pytest

from aftersales.domain.eligibility import LineContext, check_ticket, ticket_options
from aftersales.domain.enums import OrderStatus, PaymentMethod, TicketKind
from aftersales.domain.errors import RuleViolation
from aftersales.domain.refunds import LineFacts

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def laptop(delivered_ago: timedelta, open_ticket_id: str | None = None, committed: int = 0) -> LineContext:
    """A laptop line: 15-day return window, 24-month warranty, two units bought."""
    return LineContext(
        order_id="O-2026-000001",
        line_no=1,
        customer_id="C-00001",
        order_status=OrderStatus.DELIVERED,
        delivered_at=NOW - delivered_ago,
        payment_method=PaymentMethod.CARD,
        currency="CNY",
        sku="LAP-001",
        product_name="Lenovo ThinkPad X1 Carbon Gen 12",
        category_name="Laptops",
        returnable=True,
        repairable=True,
        return_window_days=15,
        warranty_months=24,
        facts=LineFacts(1299900, 2, 0, 2599800, 0, 1000),
        committed_quantity=committed,
        open_ticket_id=open_ticket_id,
    )


def test_inside_the_window_every_kind_is_possible():
    assert ticket_options(laptop(timedelta(days=3)), NOW) == dict.fromkeys(TicketKind)


def test_past_the_window_only_a_warranty_repair_is_possible_and_the_others_say_why():
    options = ticket_options(laptop(timedelta(days=60)), NOW)
    assert options[TicketKind.REPAIR] is None
    for kind in (TicketKind.REFUND_ONLY, TicketKind.RETURN_AND_REFUND, TicketKind.EXCHANGE):
        assert "warranty repair is still possible" in str(options[kind])


def test_an_open_ticket_or_no_units_left_refuse_every_kind_as_creation_would():
    for line, words in (
        (laptop(timedelta(days=3), "T-2026-0042"), "T-2026-0042"),
        (laptop(timedelta(days=3), committed=2), "0 unit"),
    ):
        options = ticket_options(line, NOW)
        for kind in TicketKind:
            assert words in str(options[kind])
            with pytest.raises(RuleViolation) as refused:
                check_ticket(line, kind, 1, NOW)
            assert str(refused.value) == str(options[kind])


def test_an_undelivered_order_allows_nothing():
    line = laptop(timedelta(days=3))
    pending = LineContext(**{**line.__dict__, "order_status": OrderStatus.SHIPPED, "delivered_at": None})
    assert all("not been delivered" in str(refusal) for refusal in ticket_options(pending, NOW).values())

"""Gather what policy needs about an order line, or say precisely what is missing."""

from collections.abc import Iterable

from aftersales.domain.eligibility import LineContext
from aftersales.domain.enums import OrderStatus, PaymentMethod
from aftersales.domain.errors import NotFound
from aftersales.domain.refunds import LineFacts
from aftersales.services.ports.rows import LineFactsRow
from aftersales.services.ports.unit_of_work import UnitOfWork


def unknown_order(order_id: str) -> NotFound:
    """The error for an order number that names no order."""
    return NotFound(
        f'No order numbered "{order_id}" exists.',
        "Order numbers look like O-2026-000123 and appear in the customer's order confirmation.",
        "Ask the customer to read the order number again from their confirmation, then call again.",
    )


def describe_lines(lines: Iterable[tuple[int, str, int]]) -> str:
    """An order's lines in one line of words: "line 1: FreeBuds x3; line 2: ..."."""
    return "; ".join(f"line {number}: {name} x{quantity}" for number, name, quantity in lines)


def line_context(uow: UnitOfWork, order_id: str, line_no: int) -> LineContext:
    """The line's facts for policy checks, in one query; unknown orders and lines are three-part errors."""
    row = uow.orders.line_facts(order_id, line_no)
    if row is None:
        raise unknown_order(order_id)
    if row.line_no is None:
        raise NotFound(
            f"Order {order_id} has no line {line_no}.",
            f"Its lines are: {describe_lines(uow.orders.lines(order_id))}.",
            "Ask the customer which item they mean and call again with that line_no.",
        )
    return context_of(row)


def order_lines(uow: UnitOfWork, order_id: str) -> list[LineContext]:
    """The facts of every line of an order, from the same statement and rules as `line_context` (in line order)."""
    rows = uow.orders.order_line_facts(order_id)
    if not rows:
        raise unknown_order(order_id)
    return [context_of(row) for row in rows]


def context_of(row: LineFactsRow) -> LineContext:
    """A line's facts as policy takes them."""
    assert row.line_no is not None  # rows of lines that exist
    return LineContext(
        order_id=row.order_id,
        line_no=row.line_no,
        customer_id=row.customer_id,
        order_status=OrderStatus(row.order_status),
        delivered_at=row.delivered_at,
        payment_method=PaymentMethod(row.payment_method),
        currency=row.currency,
        sku=row.sku,
        product_name=row.product_name,
        category_name=row.category_name,
        returnable=row.returnable,
        repairable=row.repairable,
        return_window_days=row.return_window_days,
        warranty_months=row.warranty_months,
        facts=LineFacts(
            unit_price_minor=row.unit_price_minor,
            quantity=row.quantity,
            discount_minor=row.discount_minor,
            order_goods_minor=int(row.order_goods_minor),
            shipping_fee_minor=row.shipping_fee_minor,
            restocking_fee_bps=row.restocking_fee_bps,
        ),
        committed_quantity=int(row.committed_quantity),
        open_ticket_id=row.open_ticket_id,
    )

"""Gather what policy needs about an order line, or say precisely what is missing."""

from aftersales.domain.eligibility import LineContext
from aftersales.domain.enums import OrderStatus, PaymentMethod
from aftersales.domain.errors import NotFound
from aftersales.domain.refunds import LineFacts
from aftersales.storage.unit_of_work import UnitOfWork


def line_context(uow: UnitOfWork, order_id: str, line_no: int) -> LineContext:
    """The line's facts for policy checks; unknown orders and lines are three-part errors."""
    order = uow.orders.get(order_id)
    if order is None:
        raise NotFound(
            f'No order numbered "{order_id}" exists.',
            "Order numbers look like O-2026-000123 and appear in the customer's order confirmation.",
            "Ask the customer to read the order number again from their confirmation, then call again.",
        )
    line = next((x for x in order.lines if x.line_no == line_no), None)
    if line is None:
        listed = "; ".join(f"line {x.line_no}: {x.product.name} x{x.quantity}" for x in order.lines)
        raise NotFound(
            f"Order {order_id} has no line {line_no}.",
            f"Its lines are: {listed}.",
            "Ask the customer which item they mean and call again with that line_no.",
        )
    product = line.product
    return LineContext(
        order_id=order.id,
        line_no=line.line_no,
        customer_id=order.customer_id,
        order_status=OrderStatus(order.status),
        delivered_at=order.delivered_at,
        payment_method=PaymentMethod(order.payment_method),
        currency=order.currency,
        sku=product.sku,
        product_name=product.name,
        category_name=product.category.name,
        returnable=product.returnable,
        repairable=product.repairable,
        return_window_days=product.category.return_window_days,
        warranty_months=product.warranty_months,
        facts=LineFacts(
            unit_price_minor=line.unit_price_minor,
            quantity=line.quantity,
            discount_minor=line.discount_minor,
            order_goods_minor=sum(x.paid_minor for x in order.lines),
            shipping_fee_minor=order.shipping_fee_minor,
            restocking_fee_bps=product.category.restocking_fee_bps,
        ),
        committed_quantity=uow.tickets.committed_quantity(order.id, line.line_no),
    )

"""Orders, their lines and the categories as rows: the parts of a world both generators build the same way."""

import random
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, text

from aftersales.domain.enums import Channel, OrderStatus, PaymentMethod
from aftersales.domain.policy import CategoryPolicy
from aftersales.domain.refunds import paid_minor
from aftersales.seeding.ticket_builder import CURRENCY

CHANNELS = [c.value for c in Channel]
# Random orders are paid by card, wallet or gift card; cash on delivery comes only with its stories (COD_STORIES),
# so adding it drew nothing new here and every random row stayed as it was.
PAYMENTS = [PaymentMethod.CARD.value, PaymentMethod.WALLET.value, PaymentMethod.GIFT_CARD.value]
PAYMENT_WEIGHTS = [55, 90, 100]


def order_number(year: int, sequence: int) -> str:
    """The number of the `sequence`-th order placed in `year`: O-YYYY-NNNNNN."""
    return f"O-{year}-{sequence:06d}"


def order_status_for(rng: random.Random, age: timedelta) -> OrderStatus:
    """A fulfilment status that fits how long ago the order was placed."""
    if rng.random() < 0.06:
        return OrderStatus.CANCELLED
    if age < timedelta(days=1.5):
        return rng.choice([OrderStatus.PENDING, OrderStatus.SHIPPED])
    if age < timedelta(days=5):
        return rng.choice([OrderStatus.SHIPPED, OrderStatus.SHIPPED, OrderStatus.DELIVERED])
    return OrderStatus.DELIVERED


def order_rows(
    rng: random.Random,
    order_id: str,
    customer_id: str,
    placed: datetime,
    status: OrderStatus,
    items: list[tuple[dict[str, Any], int]],
    anchor: datetime,
    delivered: datetime | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One order and its lines as rows; the order-level discount is shared across lines by value."""
    gross = sum(product["price_minor"] * quantity for product, quantity in items)
    discount = rng.choice([0, 0, 0, gross // 20, gross // 10]) if gross > 10000 else 0
    shipped = placed + timedelta(hours=rng.randint(6, 40)) if status is not OrderStatus.PENDING else None
    if status is OrderStatus.CANCELLED:
        shipped = None
    if status is OrderStatus.DELIVERED:
        latest = anchor - timedelta(hours=2)
        delivered = delivered or min(latest, (shipped or placed) + timedelta(hours=rng.randint(20, 90)))
        shipped = min(shipped or placed, delivered - timedelta(hours=20))
        placed = min(placed, shipped - timedelta(hours=6))
    order = {
        "id": order_id,
        "customer_id": customer_id,
        "channel": rng.choice(CHANNELS),
        "payment_method": rng.choices(PAYMENTS, cum_weights=PAYMENT_WEIGHTS)[0],
        "status": status.value,
        "currency": CURRENCY,
        "placed_at": placed,
        "shipped_at": shipped,
        "delivered_at": delivered if status is OrderStatus.DELIVERED else None,
        "shipping_fee_minor": 0 if gross >= 19900 else 1000,  # free shipping from ¥199
        "discount_minor": discount,
    }
    lines, remaining = [], discount
    for line_no, (product, quantity) in enumerate(items, start=1):
        line_gross = product["price_minor"] * quantity
        share = remaining if line_no == len(items) else discount * line_gross // gross
        remaining -= share
        lines.append(
            {
                "order_id": order_id,
                "line_no": line_no,
                "sku": product["sku"],
                "quantity": quantity,
                "unit_price_minor": product["price_minor"],
                "discount_minor": share,
            }
        )
    return order, lines


def goods_minor(lines: Iterable[dict[str, Any]]) -> int:
    """What an order's lines were paid in all."""
    return sum(paid_minor(x["unit_price_minor"], x["quantity"], x["discount_minor"]) for x in lines)


def category_rows(categories: Iterable[CategoryPolicy]) -> list[dict[str, Any]]:
    """The categories table, from the policy."""
    return [
        {
            "code": p.code,
            "name": p.name,
            "return_window_days": p.return_window_days,
            "restocking_fee_bps": p.restocking_fee_bps,
        }
        for p in categories
    ]


def advance_event_sequence(connection: Connection) -> None:
    """Explicit event ids bypass PostgreSQL's serial sequence; move it past them so new events get fresh ids."""
    if connection.dialect.name == "postgresql":
        top = connection.scalar(text("SELECT coalesce(max(id), 1) FROM ticket_events"))
        connection.execute(text("SELECT setval(pg_get_serial_sequence('ticket_events', 'id'), :top)"), {"top": top})

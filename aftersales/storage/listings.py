"""What the lookup tools list: a customer's orders, an order's header and lines, the tickets of a customer or order.

Whose rows a listing shows is part of its query, and pages are keyset pages, newest first: each query asks for one
row more than the page holds, so the service knows whether another page follows without counting.
"""

from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Select, and_, or_, select
from sqlalchemy.orm import InstrumentedAttribute, Session

from aftersales.domain.lookups import CustomerKey, TicketScope
from aftersales.domain.paging import Position
from aftersales.services.ports import repositories as ports
from aftersales.services.ports.rows import LineName, OrderRow, TicketDetails
from aftersales.storage.models import Customer, Order, OrderLine, Product, Ticket

# Each row type's fields from their columns, in the fields' order: rows fill the row type by position.
ORDER_COLUMNS = tuple(getattr(Order, name) for name in OrderRow._fields)
_FROM_LINE = {"sku": OrderLine.sku, "name": Product.name}  # a ticket's item, from its line's product
TICKET_COLUMNS = tuple(
    _FROM_LINE[name] if name in _FROM_LINE else getattr(Ticket, name) for name in TicketDetails._fields
)
Q = TypeVar("Q", bound=Select[*tuple[Any, ...]])
CUSTOMER_COLUMNS: dict[str, InstrumentedAttribute[str]] = {"email": Customer.email, "phone": Customer.phone}


def newest_first(
    query: Q, at: InstrumentedAttribute[datetime], key: InstrumentedAttribute[str], after: Position | None, limit: int
) -> Q:
    """`query` ordered newest first (ties by id), starting after `after`, one row longer than the page."""
    if after is not None:
        query = query.where(past(at, key, after))
    return query.order_by(at.desc(), key.desc()).limit(limit + 1)


def past(
    at: InstrumentedAttribute[datetime], key: InstrumentedAttribute[str], position: Position
) -> ColumnElement[bool]:
    """Rows that come after `position` in newest-first order: older, or as old with a smaller id."""
    return or_(at < position.at, and_(at == position.at, key < position.id))


class SqlListingRepository(ports.ListingRepository):
    """Orders by customer, an order's header and lines, tickets by customer or order."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def orders_of(self, key: CustomerKey, after: Position | None, limit: int) -> list[OrderRow]:
        """The orders of the customers `key` names (an email, a phone several accounts may share, or an id)."""
        if key.field == "customer_id":
            whose = Order.customer_id == key.value
        else:
            whose = Order.customer_id.in_(select(Customer.id).where(CUSTOMER_COLUMNS[key.field] == key.value))
        query = newest_first(select(*ORDER_COLUMNS).where(whose), Order.placed_at, Order.id, after, limit)
        return [OrderRow._make(row) for row in self.session.execute(query)]

    def order(self, order_id: str) -> OrderRow | None:
        """One order's header, or None."""
        row = self.session.execute(select(*ORDER_COLUMNS).where(Order.id == order_id)).first()
        return None if row is None else OrderRow._make(row)

    def line_names(self, order_ids: list[str]) -> list[LineName]:
        """Every line of the given orders in words, by order and line number."""
        query = (
            select(OrderLine.order_id, OrderLine.line_no, Product.name, OrderLine.quantity)
            .join(Product, Product.sku == OrderLine.sku)
            .where(OrderLine.order_id.in_(order_ids))
            .order_by(OrderLine.order_id, OrderLine.line_no)
        )
        return [LineName(*row) for row in self.session.execute(query)]

    def tickets_of(self, scope: TicketScope, after: Position | None, limit: int) -> list[TicketDetails]:
        """The tickets of one customer or one order, as a ticket view shows them."""
        whose = Ticket.customer_id == scope.value if scope.field == "customer_id" else Ticket.order_id == scope.value
        query = (
            select(*TICKET_COLUMNS)
            .join(OrderLine, and_(OrderLine.order_id == Ticket.order_id, OrderLine.line_no == Ticket.line_no))
            .join(Product, Product.sku == OrderLine.sku)
            .where(whose)
        )
        query = newest_first(query, Ticket.created_at, Ticket.id, after, limit)
        return [TicketDetails._make(row) for row in self.session.execute(query)]

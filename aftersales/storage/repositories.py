"""Every query lives here; services never write SQL."""

from collections.abc import Sequence

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from aftersales.storage.models import Category, Order, OrderLine, Product, Ticket, TicketEvent


class TicketRepository:
    """Tickets and their timelines."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def get(self, ticket_id: str) -> Ticket | None:
        """The ticket with this number, or None."""
        return self.session.get(Ticket, ticket_id)

    def latest_events(self, ticket_id: str, limit: int) -> list[TicketEvent]:
        """The newest `limit` events of a ticket, oldest first."""
        newest = (
            select(TicketEvent)
            .where(TicketEvent.ticket_id == ticket_id)
            .order_by(TicketEvent.occurred_at.desc(), TicketEvent.id.desc())
            .limit(limit)
        )
        return list(reversed(self.session.scalars(newest).all()))

    def count_events(self, ticket_id: str) -> int:
        """How many events a ticket's timeline holds."""
        query = select(func.count()).select_from(TicketEvent).where(TicketEvent.ticket_id == ticket_id)
        return self.session.scalar(query) or 0


class OrderRepository:
    """Orders and their lines."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def get(self, order_id: str) -> Order | None:
        """The order with this id, or None."""
        return self.session.get(Order, order_id)

    def line(self, order_id: str, line_no: int) -> OrderLine | None:
        """One line of an order, or None."""
        return self.session.get(OrderLine, (order_id, line_no))


class CatalogRepository:
    """Products and categories."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def categories(self) -> Sequence[Category]:
        """All categories, by code."""
        return self.session.scalars(select(Category).order_by(Category.code)).all()

    def product(self, sku: str) -> Product | None:
        """The product with this SKU, or None."""
        return self.session.get(Product, sku)

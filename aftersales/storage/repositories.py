"""Every query lives here; services never write SQL."""

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from aftersales.domain.enums import TicketStatus
from aftersales.storage.models import Category, Order, OrderLine, Product, Quote, Ticket, TicketEvent

# Rejected and cancelled tickets give their units back; open and completed ones hold them.
HOLDING_STATUSES = [s.value for s in TicketStatus if s not in (TicketStatus.REJECTED, TicketStatus.CANCELLED)]


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

    def committed_quantity(self, order_id: str, line_no: int) -> int:
        """Units of a line already covered by open or completed tickets."""
        query = select(func.coalesce(func.sum(Ticket.quantity), 0)).where(
            Ticket.order_id == order_id, Ticket.line_no == line_no, Ticket.status.in_(HOLDING_STATUSES)
        )
        return int(self.session.scalar(query) or 0)

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


class QuoteRepository:
    """Refund quotes; every read is scoped to the owner inside the query."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def add(self, quote: Quote) -> None:
        """Stage a new quote."""
        self.session.add(quote)

    def get_owned(self, quote_id: str, owner: str) -> Quote | None:
        """The quote if it exists and belongs to `owner`; someone else's reads as missing."""
        return self.session.scalar(select(Quote).where(Quote.id == quote_id, Quote.owner == owner))

    def purge_expired_before(self, cutoff: datetime) -> int:
        """Delete quotes that expired before `cutoff`; return how many."""
        return self.session.execute(delete(Quote).where(Quote.expires_at < cutoff)).rowcount or 0

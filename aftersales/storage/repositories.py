"""Every query lives here; services never write SQL."""

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import and_, delete, func, or_, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from aftersales.domain.enums import CLOSED_STATUSES, TicketKind
from aftersales.storage.models import (
    Category,
    IdempotencyRecord,
    Order,
    OrderLine,
    Product,
    Quote,
    Ticket,
    TicketEvent,
    TicketSequence,
)

CLOSED = [s.value for s in CLOSED_STATUSES]
REFUND_KINDS = [k.value for k in TicketKind if k.refunds]


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
        """Units of a line held by open tickets of any kind or already refunded by completed refund tickets.

        A completed repair or exchange leaves the item with the customer, so its units count again.
        """
        holding = or_(Ticket.status.not_in(CLOSED), and_(Ticket.status == "completed", Ticket.kind.in_(REFUND_KINDS)))
        query = select(func.coalesce(func.sum(Ticket.quantity), 0)).where(
            Ticket.order_id == order_id, Ticket.line_no == line_no, holding
        )
        return int(self.session.scalar(query) or 0)

    def open_ticket_on(self, order_id: str, line_no: int) -> str | None:
        """The number of the line's open ticket, if any."""
        query = select(Ticket.id).where(
            Ticket.order_id == order_id, Ticket.line_no == line_no, Ticket.status.not_in(CLOSED)
        )
        return self.session.scalar(query)

    def opened_since(self, customer_id: str, since: datetime) -> int:
        """How many tickets a customer opened since `since`."""
        query = (
            select(func.count())
            .select_from(Ticket)
            .where(Ticket.customer_id == customer_id, Ticket.created_at >= since)
        )
        return self.session.scalar(query) or 0

    def next_number(self, year: int) -> int:
        """Take the next ticket sequence number of `year`, atomically (an upsert holds the row until commit)."""
        table = TicketSequence.__table__
        insert = postgresql_insert if self.session.get_bind().dialect.name == "postgresql" else sqlite_insert
        statement = (
            insert(table)
            .values(year=year, last_value=1)
            .on_conflict_do_update(index_elements=["year"], set_={"last_value": table.c.last_value + 1})
            .returning(table.c.last_value)
        )
        return int(self.session.execute(statement).scalar_one())

    def add(self, ticket: Ticket, events: list[TicketEvent]) -> None:
        """Stage a new ticket and its first events."""
        self.session.add(ticket)
        self.session.flush()  # the ticket row must exist before its events reference it
        self.session.add_all(events)
        self.session.flush()

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


class IdempotencyRepository:
    """Idempotency records, unique per (caller, tool, key)."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def find(self, caller: str, tool: str, key: str, now: datetime) -> IdempotencyRecord | None:
        """The live record for this key, if any (expired ones are treated as absent)."""
        query = select(IdempotencyRecord).where(
            IdempotencyRecord.caller == caller,
            IdempotencyRecord.tool == tool,
            IdempotencyRecord.key == key,
            IdempotencyRecord.expires_at > now,
        )
        return self.session.scalar(query)

    def claim(self, record: IdempotencyRecord) -> None:
        """Insert the record now, so a concurrent call with the same key waits on (or fails) the constraint."""
        self.session.add(record)
        self.session.flush()

    def purge_expired(self, now: datetime) -> int:
        """Delete expired records; a key is free again once its record has expired."""
        return self.session.execute(delete(IdempotencyRecord).where(IdempotencyRecord.expires_at <= now)).rowcount or 0

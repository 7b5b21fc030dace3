"""Every query lives here; services never write SQL."""

from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import delete, func, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from aftersales.domain.enums import CLOSED_STATUSES
from aftersales.storage.models import (
    IdempotencyRecord,
    Quote,
    Ticket,
    TicketEvent,
    TicketSequence,
)

CLOSED = [s.value for s in CLOSED_STATUSES]


class Card(NamedTuple):
    """The fields a ticket view shows."""

    id: str
    order_id: str
    quantity: int
    kind: str
    status: str
    refund_method: str | None
    refund_total_minor: int
    currency: str
    created_at: datetime
    updated_at: datetime
    sku: str
    name: str


class EventRow(NamedTuple):
    """One timeline entry as stored."""

    occurred_at: datetime
    type: str
    actor: str
    note: str


# The read path is the hottest in the service: two indexed statements run on the driver directly, skipping
# SQLAlchemy's per-statement compilation and result processing. {p} is the driver's parameter marker.
CARD_SQL = (
    "SELECT t.id, t.order_id, t.quantity, t.kind, t.status, t.refund_method, t.refund_total_minor, t.currency, "
    "t.created_at, t.updated_at, l.sku, p.name FROM tickets t "
    "JOIN order_lines l ON l.order_id = t.order_id AND l.line_no = t.line_no "
    "JOIN products p ON p.sku = l.sku WHERE t.id = {p}"
)
TIMELINE_SQL = (
    "SELECT occurred_at, type, actor, note, count(*) OVER () FROM ticket_events WHERE ticket_id = {p} "
    "ORDER BY occurred_at DESC, id DESC LIMIT {p}"
)


def fetch(session: Session, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Run a read on the unit of work's own connection and transaction, through the driver's cursor."""
    connection = session.connection()
    marker = "?" if connection.dialect.paramstyle == "qmark" else "%s"
    cursor = connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute(sql.format(p=marker), params)
        return cursor.fetchall()
    finally:
        cursor.close()


def _moment(value: Any) -> datetime:
    """SQLite hands back timestamps as text; PostgreSQL as datetimes."""
    return datetime.fromisoformat(value) if isinstance(value, str) else value


class TicketRepository:
    """Tickets and their timelines."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def get(self, ticket_id: str) -> Ticket | None:
        """The ticket with this number, or None."""
        return self.session.get(Ticket, ticket_id)

    def card(self, ticket_id: str) -> Card | None:
        """The fields a ticket view shows, in one indexed query."""
        rows = self._fetch(CARD_SQL, (ticket_id,))
        if not rows:
            return None
        row = rows[0]
        return Card(*row[:8], _moment(row[8]), _moment(row[9]), *row[10:])

    def timeline(self, ticket_id: str, limit: int) -> tuple[list[EventRow], int]:
        """The newest `limit` events oldest first, and how many the timeline holds, in one query."""
        rows = self._fetch(TIMELINE_SQL, (ticket_id, limit))
        events = [EventRow(_moment(at), kind, actor, note) for at, kind, actor, note, _ in reversed(rows)]
        return events, (rows[0][4] if rows else 0)

    def _fetch(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        return fetch(self.session, sql, params)

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


class LineFactsRow(NamedTuple):
    """An order line with everything policy needs: order, product, category, goods total, units held."""

    order_id: str
    customer_id: str
    order_status: str
    delivered_at: datetime | None
    payment_method: str
    currency: str
    shipping_fee_minor: int
    line_no: int | None  # None when the order has no such line
    quantity: int
    unit_price_minor: int
    discount_minor: int
    sku: str
    product_name: str
    returnable: bool
    repairable: bool
    warranty_months: int
    category_name: str
    return_window_days: int
    restocking_fee_bps: int
    order_goods_minor: int
    committed_quantity: int


# One statement for what estimating or opening a ticket needs to know about a line. Units are held by open
# tickets of any kind and by completed refunds; a completed repair or exchange leaves the item with the customer.
LINE_FACTS_SQL = (
    "SELECT o.id, o.customer_id, o.status, o.delivered_at, o.payment_method, o.currency, o.shipping_fee_minor, "
    "l.line_no, l.quantity, l.unit_price_minor, l.discount_minor, p.sku, p.name, p.returnable, p.repairable, "
    "p.warranty_months, c.name, c.return_window_days, c.restocking_fee_bps, "
    "(SELECT sum(x.unit_price_minor * x.quantity - x.discount_minor) FROM order_lines x WHERE x.order_id = o.id), "
    "(SELECT coalesce(sum(t.quantity), 0) FROM tickets t WHERE t.order_id = o.id AND t.line_no = l.line_no "
    " AND (t.status NOT IN ('completed', 'rejected', 'cancelled') "
    "      OR (t.status = 'completed' AND t.kind IN ('refund_only', 'return_and_refund')))) "
    "FROM orders o LEFT JOIN order_lines l ON l.order_id = o.id AND l.line_no = {p} "
    "LEFT JOIN products p ON p.sku = l.sku LEFT JOIN categories c ON c.code = p.category_code WHERE o.id = {p}"
)
LINES_SQL = (
    "SELECT l.line_no, p.name, l.quantity FROM order_lines l JOIN products p ON p.sku = l.sku "
    "WHERE l.order_id = {p} ORDER BY l.line_no"
)


class OrderRepository:
    """Orders and their lines."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def line_facts(self, order_id: str, line_no: int) -> LineFactsRow | None:
        """The line and what policy needs about it, or None for an unknown order (line_no None: no such line)."""
        rows = fetch(self.session, LINE_FACTS_SQL, (line_no, order_id))
        if not rows:
            return None
        row = list(rows[0])
        row[3] = _moment(row[3]) if row[3] is not None else None
        if row[7] is not None:
            row[13], row[14] = bool(row[13]), bool(row[14])
        return LineFactsRow(*row)

    def lines(self, order_id: str) -> list[tuple[int, str, int]]:
        """(line number, product name, quantity) of every line of an order."""
        return [tuple(row) for row in fetch(self.session, LINES_SQL, (order_id,))]  # type: ignore[misc]


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

    def drop_expired(self, caller: str, tool: str, key: str, now: datetime) -> None:
        """Delete this key's record if it has expired (through the unique index), freeing the key."""
        self.session.execute(
            delete(IdempotencyRecord).where(
                IdempotencyRecord.caller == caller,
                IdempotencyRecord.tool == tool,
                IdempotencyRecord.key == key,
                IdempotencyRecord.expires_at <= now,
            )
        )

    def purge_expired(self, now: datetime) -> int:
        """Delete expired records; a key is free again once its record has expired."""
        return self.session.execute(delete(IdempotencyRecord).where(IdempotencyRecord.expires_at <= now)).rowcount or 0

"""Every query of the shop's data lives here; services never write SQL. Rows leave as domain objects."""

from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import bindparam, column, func, insert, select, table, update
from sqlalchemy.orm import Session

from aftersales.domain.enums import EventType, TicketKind, TicketStatus
from aftersales.domain.policy import holds_units
from aftersales.domain.refunds import paid_minor
from aftersales.domain.tickets import NewTicket, TimelineEntry
from aftersales.services.ports import repositories as ports
from aftersales.services.ports.rows import KeyResult, LineFactsRow, TicketDetails, TicketWithTimeline
from aftersales.storage.base import listed, table_of
from aftersales.storage.driver_cursor import driver_rows, json_rows, moment
from aftersales.storage.models import Ticket, TicketEvent, open_ticket_condition
from aftersales.storage.opening import event_row, open_ticket


def selected(columns: dict[str, str], fields: tuple[str, ...]) -> str:
    """The SELECT list of `columns` (each a row type's field and its SQL), checked to be in the row type's order."""
    if tuple(columns) != fields:
        raise ValueError(f"columns {tuple(columns)} do not fill {fields} in order")
    return ", ".join(columns.values())


# The read path is the hottest in the service: its statements run on the driver directly (storage.driver_cursor), whose
# rows are plain tuples, so each statement's columns are named by the row type they fill, in its order.
# {p} is the driver's parameter marker.
TICKET_COLUMNS = selected(
    {
        "id": "t.id",
        "order_id": "t.order_id",
        "quantity": "t.quantity",
        "kind": "t.kind",
        "status": "t.status",
        "refund_method": "t.refund_method",
        "refund_total_minor": "t.refund_total_minor",
        "currency": "t.currency",
        "created_at": "t.created_at",
        "updated_at": "t.updated_at",
        "sku": "l.sku",
        "name": "p.name",
        "channel": "t.channel",
    },
    TicketDetails._fields,
)
TICKET_JOINS = (
    "FROM tickets t JOIN order_lines l ON l.order_id = t.order_id AND l.line_no = t.line_no "
    "JOIN products p ON p.sku = l.sku WHERE t.id = {p}"
)
DETAILS_SQL = f"SELECT {TICKET_COLUMNS} {TICKET_JOINS}"


class StoredEvent(NamedTuple):
    """A timeline event as the ticket statements read it: the entry's fields, then its id (the tie-break)."""

    occurred_at: Any  # text on SQLite and inside JSON, a datetime on PostgreSQL (driver_cursor.moment reads both)
    type: str
    actor: str
    note: str
    channel: str | None
    id: int

    def entry(self) -> TimelineEntry:
        """The event as the timeline shows it."""
        return TimelineEntry(moment(self.occurred_at), self.type, self.actor, self.note, self.channel)


_EVENT_FIELDS = StoredEvent._fields
if _EVENT_FIELDS != ("occurred_at", "type", "actor", "note", "channel", "id"):  # _oldest_first unpacks them so
    raise ValueError(f"_oldest_first unpacks events in another order than StoredEvent's {_EVENT_FIELDS}")
TIMELINE_SQL = (
    f"SELECT {', '.join(_EVENT_FIELDS)}, count(*) OVER () FROM ticket_events WHERE ticket_id = {{p}} "
    "ORDER BY occurred_at DESC, id DESC LIMIT {p}"
)
# A ticket with its newest events and their count in one statement (one snapshot, one round trip): the ticket's
# columns, then the events as a JSON array, ordered in Python on SQLite, whose json_group_array takes no ORDER BY,
# then the timeline's length.
_NEWEST = "FROM ticket_events WHERE ticket_id = t.id ORDER BY occurred_at DESC, id DESC LIMIT {p}) e"
_EVENT = ", ".join(f"e.{name}" for name in _EVENT_FIELDS)
VIEW_SQL = {
    "sqlite": f"SELECT {TICKET_COLUMNS}, (SELECT json_group_array(json_array({_EVENT})) FROM (SELECT * {_NEWEST}), "
    f"(SELECT count(*) FROM ticket_events WHERE ticket_id = t.id) {TICKET_JOINS}",
    "postgresql": f"SELECT {TICKET_COLUMNS}, (SELECT json_agg(json_build_array({_EVENT}) ORDER BY e.occurred_at, "
    f"e.id) FROM (SELECT * {_NEWEST}), (SELECT count(*) FROM ticket_events WHERE ticket_id = t.id) {TICKET_JOINS}",
}


_CREATED, _UPDATED = TicketDetails._fields.index("created_at"), TicketDetails._fields.index("updated_at")


def _details(columns: Sequence[Any]) -> TicketDetails:
    """The ticket columns of a driver row (TICKET_COLUMNS), its times read as UTC."""
    values = list(columns)
    values[_CREATED], values[_UPDATED] = moment(values[_CREATED]), moment(values[_UPDATED])
    return TicketDetails._make(values)


def _oldest_first(events: list[list[Any]]) -> list[TimelineEntry]:
    """Events in StoredEvent's columns as timeline entries, oldest first (ties by id); each time read once."""
    timed = []
    for occurred_at, type_, actor, note, channel, event_id in events:  # StoredEvent's fields, in its order
        at = moment(occurred_at)
        timed.append((at, event_id, TimelineEntry(at, type_, actor, note, channel)))
    timed.sort(key=lambda each: each[:2])
    return [entry for _, _, entry in timed]


_tickets = table_of(Ticket)
# A statement of the create path, built once (see storage.handles).
OPENED_SINCE = (
    select(func.count())
    .select_from(_tickets)
    .where(_tickets.c.customer_id == bindparam("customer"), _tickets.c.created_at >= bindparam("since"))
)


class SqlTicketRepository(ports.TicketRepository):
    """Tickets and their timelines."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def details(self, ticket_id: str) -> TicketDetails | None:
        """The fields a ticket view shows, in one indexed query."""
        rows = driver_rows(self.session, DETAILS_SQL, (ticket_id,))
        return _details(rows[0]) if rows else None

    def view(self, ticket_id: str, limit: int) -> TicketWithTimeline | None:
        """The ticket, its newest `limit` events oldest first and the timeline's length, in one statement."""
        sql = VIEW_SQL[self.session.get_bind().dialect.name]
        rows = driver_rows(self.session, sql, (limit, ticket_id))
        if not rows:
            return None
        *ticket, events, total = rows[0]
        return TicketWithTimeline(_details(ticket), _oldest_first(json_rows(events)), int(total))

    def timeline(self, ticket_id: str, limit: int) -> tuple[list[TimelineEntry], int]:
        """The newest `limit` events oldest first, and how many the timeline holds, in one query."""
        rows = driver_rows(self.session, TIMELINE_SQL, (ticket_id, limit))
        events = [StoredEvent._make(event).entry() for *event, _ in reversed(rows)]
        return events, (rows[0][-1] if rows else 0)  # every row ends with the timeline's length

    def by_channel(self, since: datetime) -> list[tuple[str, str | None, int]]:
        """(opened | cancelled, channel or None, how many): tickets opened and cancellations at or after `since`."""
        events = table_of(TicketEvent)
        opened = (
            select(_tickets.c.channel, func.count()).where(_tickets.c.created_at >= since).group_by(_tickets.c.channel)
        )
        cancelled = (
            select(events.c.channel, func.count())
            .where(events.c.type == EventType.CANCELLED.value, events.c.occurred_at >= since)
            .group_by(events.c.channel)
        )
        return [
            (change, channel, count)
            for change, query in (("opened", opened), ("cancelled", cancelled))
            for channel, count in self.session.execute(query)
        ]

    def opened_since(self, customer_id: str, since: datetime) -> int:
        """How many tickets a customer opened since `since`."""
        return self.session.scalar(OPENED_SINCE, {"customer": customer_id, "since": since}) or 0

    def open(self, draft: NewTicket, events: list[TimelineEntry], key: KeyResult) -> str:
        """Number a drafted ticket and write it, its events and its key's result, last (storage.opening)."""
        return open_ticket(self.session, draft, events, key)

    def move(self, ticket_id: str, current: TicketStatus, new: TicketStatus, at: datetime) -> bool:
        """Change a ticket's status only while it still is `current` (compare and set); say whether it changed.

        A concurrent change of the same ticket makes this wait on the row, then find it moved and change nothing.
        """
        statement = (
            update(Ticket)
            .where(Ticket.id == ticket_id, Ticket.status == current.value)
            .values(status=new.value, updated_at=at)
            .returning(Ticket.id)
        )
        changed = self.session.execute(statement, execution_options={"synchronize_session": False})
        return changed.first() is not None

    def record(self, ticket_id: str, events: list[TimelineEntry]) -> None:
        """Add events to a ticket's timeline, in their order (one executemany)."""
        if events:
            self.session.execute(insert(table_of(TicketEvent)), [event_row(ticket_id, e) for e in events])


def holding_condition(alias: str) -> str:
    """SQL for policy.holds_units over the tickets aliased `alias`: the (kind, status) pairs it holds for."""
    every_kind, some_kinds = [], []
    for status in TicketStatus:
        kinds = [kind for kind in TicketKind if holds_units(kind, status)]
        if len(kinds) == len(TicketKind):
            every_kind.append(status)
        elif kinds:
            some_kinds.append(f"({alias}.status = '{status}' AND {alias}.kind IN ({listed(kinds)}))")
    return " OR ".join([f"{alias}.status IN ({listed(every_kind)})", *some_kinds])


_lines = table("x", column("unit_price_minor"), column("quantity"), column("discount_minor"))
# What every line of the order paid (domain.refunds.paid_minor), summed in SQL.
ORDER_GOODS_SQL = str(
    func.sum(paid_minor(_lines.c.unit_price_minor, _lines.c.quantity, _lines.c.discount_minor)).compile(
        compile_kwargs={"literal_binds": True}
    )
)
# One statement for what estimating or opening a ticket needs to know about a line.
LINE_FACTS_COLUMNS = selected(
    {
        "order_id": "o.id",
        "customer_id": "o.customer_id",
        "order_status": "o.status",
        "delivered_at": "o.delivered_at",
        "payment_method": "o.payment_method",
        "currency": "o.currency",
        "shipping_fee_minor": "o.shipping_fee_minor",
        "line_no": "l.line_no",
        "quantity": "l.quantity",
        "unit_price_minor": "l.unit_price_minor",
        "discount_minor": "l.discount_minor",
        "sku": "p.sku",
        "product_name": "p.name",
        "returnable": "p.returnable",
        "repairable": "p.repairable",
        "warranty_months": "p.warranty_months",
        "category_name": "c.name",
        "return_window_days": "c.return_window_days",
        "restocking_fee_bps": "c.restocking_fee_bps",
        "order_goods_minor": f"(SELECT {ORDER_GOODS_SQL} FROM order_lines x WHERE x.order_id = o.id)",
        "committed_quantity": "(SELECT coalesce(sum(t.quantity), 0) FROM tickets t WHERE t.order_id = o.id "
        f"AND t.line_no = l.line_no AND ({holding_condition('t')}))",
        "open_ticket_id": "(SELECT t.id FROM tickets t WHERE t.order_id = o.id AND t.line_no = l.line_no "
        f"AND {open_ticket_condition('t.')})",
    },
    LineFactsRow._fields,
)
LINE_FACTS_SQL = (
    f"SELECT {LINE_FACTS_COLUMNS} "
    "FROM orders o LEFT JOIN order_lines l ON l.order_id = o.id AND l.line_no = {p} "
    "LEFT JOIN products p ON p.sku = l.sku LEFT JOIN categories c ON c.code = p.category_code WHERE o.id = {p}"
)
# Every line of an order, by the same statement: only the line filter differs, so both read the same facts.
ORDER_LINE_FACTS_SQL = LINE_FACTS_SQL.replace(" AND l.line_no = {p}", "") + " ORDER BY l.line_no"
LINES_SQL = (
    "SELECT l.line_no, p.name, l.quantity FROM order_lines l JOIN products p ON p.sku = l.sku "
    "WHERE l.order_id = {p} ORDER BY l.line_no"
)


class SqlOrderRepository(ports.OrderRepository):
    """Orders and their lines."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def line_facts(self, order_id: str, line_no: int) -> LineFactsRow | None:
        """The line and what policy needs about it, or None for an unknown order (line_no None: no such line)."""
        rows = driver_rows(self.session, LINE_FACTS_SQL, (line_no, order_id))
        return _line_facts(rows[0]) if rows else None

    def order_line_facts(self, order_id: str) -> list[LineFactsRow]:
        """What policy needs about every line of an order, in line order (none for an unknown order)."""
        rows = driver_rows(self.session, ORDER_LINE_FACTS_SQL, (order_id,))
        return [facts for facts in map(_line_facts, rows) if facts.line_no is not None]

    def lines(self, order_id: str) -> list[tuple[int, str, int]]:
        """(line number, product name, quantity) of every line of an order."""
        return [
            (number, name, quantity) for number, name, quantity in driver_rows(self.session, LINES_SQL, (order_id,))
        ]


def _line_facts(columns: Sequence[Any]) -> LineFactsRow:
    """A row of the line-facts statement with the types both drivers agree on (SQLite's booleans are integers)."""
    row = LineFactsRow._make(columns)
    delivered = moment(row.delivered_at) if row.delivered_at is not None else None
    if row.line_no is None:
        return row._replace(delivered_at=delivered)
    return row._replace(delivered_at=delivered, returnable=bool(row.returnable), repairable=bool(row.repairable))

"""A new ticket's last step: draw its number, then write it, its first events and its key's result, at once.

Ticket numbers are gapless per year, so the year's counter row stays locked from the draw until the transaction
ends, and every create in the shop queues on it. The draw is therefore the transaction's last statement: the rules,
the quote, the idempotency claim and every row to write are settled before it, with the number a placeholder. On
PostgreSQL the draw and the writes are one statement (data-modifying CTEs; foreign keys are checked at its end), so
the lock is held for that statement and the COMMIT. On SQLite, whose writers queue on one lock anyway, they run one
after another.
"""

from typing import Any

from sqlalchemy import bindparam, insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from aftersales.domain.tickets import NewTicket, TimelineEntry, ticket_number
from aftersales.services.ports.rows import KeyResult
from aftersales.storage.base import table_of
from aftersales.storage.driver_cursor import driver_writes
from aftersales.storage.handles import COMPLETE_KEY
from aftersales.storage.models import Ticket, TicketEvent, TicketSequence

# ticket_number's T-YYYY-NNNN (more digits past 9999), in SQL.
_NUMBER = "'T-' || s.year || '-' || lpad(s.last_value::text, greatest(4, length(s.last_value::text)), '0')"
_COLUMNS = (
    "id, order_id, line_no, customer_id, quantity, kind, reason_code, description, refund_method, currency, "
    "item_amount_minor, restocking_fee_minor, shipping_refund_minor, refund_total_minor, status, created_by, "
    "created_at, updated_at, channel"
)
_EVENT = "({p}::timestamptz, {p}, {p}, {p}, {p}, {p}::int)"
_OPEN_SQL = (
    "WITH n AS (INSERT INTO ticket_sequences AS s (year, last_value) VALUES ({p}, 1) ON CONFLICT (year) DO UPDATE "
    f"SET last_value = s.last_value + 1 RETURNING {_NUMBER} AS id), "
    f"t AS (INSERT INTO tickets ({_COLUMNS}) SELECT n.id, {{p}}, {{p}}::int, {{p}}, {{p}}::int, {{p}}, {{p}}, {{p}}, "
    "{p}, {p}, {p}::int, {p}::int, {p}::int, {p}::int, {p}, {p}, {p}::timestamptz, {p}::timestamptz, {p} FROM n), "
    # Events keep their order in the timeline by id, so they are inserted in it.
    "e AS (INSERT INTO ticket_events (ticket_id, occurred_at, type, actor, note, channel) SELECT n.id, v.at, "
    "v.type, v.actor, v.note, v.channel FROM n, (VALUES {events}) AS v (at, type, actor, note, channel, position) "
    "ORDER BY v.position), "
    "k AS (UPDATE idempotency_records SET result = replace({p}, {p}, n.id), ticket_id = n.id FROM n "
    "WHERE caller = {p} AND tool = {p} AND key = {p}) "
    "SELECT id FROM n"
)

_sequences = table_of(TicketSequence)
_DRAW = (
    sqlite_insert(_sequences)
    .values(year=bindparam("year"), last_value=1)
    .on_conflict_do_update(index_elements=["year"], set_={"last_value": _sequences.c.last_value + 1})
    .returning(_sequences.c.last_value)
)


def open_ticket(session: Session, draft: NewTicket, events: list[TimelineEntry], key: KeyResult) -> str:
    """Number `draft` (whose id is the placeholder) and write it, its events and its key's result; return its number.

    Call it last before COMMIT: from here to the end of the transaction every other create waits.
    """
    if session.get_bind().dialect.name == "postgresql":
        return _in_one_statement(session, draft, events, key)
    year = draft.created_at.year
    number = ticket_number(year, int(session.execute(_DRAW, {"year": year}).scalar_one()))
    session.execute(insert(table_of(Ticket)), ticket_row(draft, number))
    if events:
        session.execute(insert(table_of(TicketEvent)), [event_row(number, e) for e in events])
    completed = {"outcome": key.result.replace(draft.id, number), "ticket": number}
    session.execute(COMPLETE_KEY, {"of_caller": key.caller, "of_tool": key.tool, "of_key": key.key, **completed})
    return number


def _in_one_statement(session: Session, draft: NewTicket, events: list[TimelineEntry], key: KeyResult) -> str:
    """PostgreSQL: the draw and every write in one statement, one round trip."""
    row = ticket_row(draft, draft.id)
    del row["id"]
    values: list[Any] = [draft.created_at.year, *row.values()]
    for position, event in enumerate(events):
        values += [event.occurred_at, event.type, event.actor, event.note, event.channel, position]
    values += [key.result, draft.id, key.caller, key.tool, key.key]
    assert events  # a new ticket's timeline starts with its creation
    sql = _OPEN_SQL.replace("{events}", ", ".join([_EVENT] * len(events)))
    [(number,)] = driver_writes(session, sql, tuple(values))
    return str(number)


def ticket_row(ticket: NewTicket, number: str) -> dict[str, Any]:
    """The tickets row of a new ticket numbered `number`, column by column (the fake unit of work stores the same)."""
    refund = ticket.refund
    return {
        "id": number,
        "order_id": ticket.order_id,
        "line_no": ticket.line_no,
        "customer_id": ticket.customer_id,
        "quantity": ticket.quantity,
        "kind": ticket.kind.value,
        "reason_code": ticket.reason.value,
        "description": ticket.description,
        "refund_method": ticket.refund_method.value if ticket.refund_method else None,
        "currency": ticket.currency,
        "item_amount_minor": refund.item_amount_minor,
        "restocking_fee_minor": refund.restocking_fee_minor,
        "shipping_refund_minor": refund.shipping_refund_minor,
        "refund_total_minor": refund.total_minor,
        "status": ticket.status.value,
        "created_by": ticket.created_by,
        "created_at": ticket.created_at,
        "updated_at": ticket.created_at,
        "channel": ticket.channel.value if ticket.channel else None,
    }


def event_row(ticket_id: str, event: TimelineEntry) -> dict[str, Any]:
    """The ticket_events row of one timeline entry of `ticket_id`."""
    return {
        "ticket_id": ticket_id,
        "occurred_at": event.occurred_at,
        "type": event.type,
        "actor": event.actor,
        "note": event.note,
        "channel": event.channel,
    }

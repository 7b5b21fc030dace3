"""What the service hands out and must recognise again: quote handles and idempotency keys."""

import json
from datetime import datetime
from typing import Any

from sqlalchemy import CursorResult, Result, bindparam, delete, insert, select, update
from sqlalchemy.orm import Session

from aftersales.domain.creation import KeyRecord
from aftersales.domain.enums import ReasonCode
from aftersales.domain.quotes import Quote
from aftersales.domain.refunds import Breakdown
from aftersales.services.ports import repositories as ports
from aftersales.storage.base import table_of
from aftersales.storage.driver_cursor import driver_writes
from aftersales.storage.models import IdempotencyRecord
from aftersales.storage.models import Quote as QuoteRow


class SqlQuoteRepository(ports.QuoteRepository):
    """Refund quotes; every read is scoped to the owner inside the query."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def add(self, quote: Quote) -> None:
        """Insert a new quote (a Core statement: no ORM object to track on the write path)."""
        refund = quote.refund
        row = {
            "id": quote.id,
            "owner": quote.owner,
            "order_id": quote.order_id,
            "line_no": quote.line_no,
            "quantity": quote.quantity,
            "reason_code": quote.reason.value,
            "currency": quote.currency,
            "item_amount_minor": refund.item_amount_minor,
            "restocking_fee_minor": refund.restocking_fee_minor,
            "shipping_refund_minor": refund.shipping_refund_minor,
            "total_minor": refund.total_minor,
            "created_at": quote.created_at,
            "expires_at": quote.expires_at,
        }
        self.session.execute(insert(table_of(QuoteRow)), row)

    def get_owned(self, quote_id: str, owner: str) -> Quote | None:
        """The quote if it exists and belongs to `owner`; someone else's reads as missing."""
        row = self.session.scalar(select(QuoteRow).where(QuoteRow.id == quote_id, QuoteRow.owner == owner))
        if row is None:
            return None
        refund = Breakdown(row.item_amount_minor, row.restocking_fee_minor, row.shipping_refund_minor)
        return Quote(
            id=row.id,
            owner=row.owner,
            order_id=row.order_id,
            line_no=row.line_no,
            quantity=row.quantity,
            reason=ReasonCode(row.reason_code),
            currency=row.currency,
            refund=refund,
            created_at=row.created_at,
            expires_at=row.expires_at,
        )

    def purge_expired_before(self, cutoff: datetime) -> int:
        """Delete quotes that expired before `cutoff`; return how many."""
        return deleted(self.session.execute(delete(QuoteRow).where(QuoteRow.expires_at < cutoff)))


_records = table_of(IdempotencyRecord)
# The create path's statements, built once over the table with bound parameters: building a statement and running
# it through the ORM's execution cost more than the database's own work on every create.
_KEY = (
    _records.c.caller == bindparam("of_caller"),
    _records.c.tool == bindparam("of_tool"),
    _records.c.key == bindparam("of_key"),
)
FIND_KEY = select(_records.c.arguments, _records.c.result).where(*_KEY, _records.c.expires_at > bindparam("now"))
COMPLETE_KEY = update(_records).where(*_KEY).values(result=bindparam("outcome"), ticket_id=bindparam("ticket"))
DROP_EXPIRED_KEY = delete(_records).where(*_KEY, _records.c.expires_at <= bindparam("now"))


# This key's expired record deleted and its live one read, in one round trip (a CTE's DELETE runs whether or not
# the query reads it).
LIVE_KEY_SQL = (
    "WITH gone AS (DELETE FROM idempotency_records WHERE caller = {p} AND tool = {p} AND key = {p} "
    "AND expires_at <= {p}) SELECT arguments, result FROM idempotency_records "
    "WHERE caller = {p} AND tool = {p} AND key = {p} AND expires_at > {p}"
)


class SqlIdempotencyRepository(ports.IdempotencyRepository):
    """Idempotency records, unique per (caller, tool, key)."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def find(self, caller: str, tool: str, key: str, now: datetime) -> KeyRecord | None:
        """The live record for this key, if any (expired ones are treated as absent)."""
        row = self.session.execute(FIND_KEY, {"of_caller": caller, "of_tool": tool, "of_key": key, "now": now}).first()
        return None if row is None else KeyRecord(arguments=json.loads(row.arguments), result=row.result)

    def claim(
        self, caller: str, tool: str, key: str, arguments: dict[str, Any], now: datetime, until: datetime
    ) -> None:
        """Insert the key's record now, result still empty, so a concurrent call with the same key waits on (or
        fails) the unique constraint."""
        row = {
            "caller": caller,
            "tool": tool,
            "key": key,
            "arguments": json.dumps(arguments, sort_keys=True),
            "result": None,
            "created_at": now,
            "expires_at": until,
        }
        self.session.execute(insert(table_of(IdempotencyRecord)), row)

    def complete(self, caller: str, tool: str, key: str, result: str, ticket_id: str | None) -> None:
        """Store the result of the key's first call, with the ticket it created."""
        keyed = {"of_caller": caller, "of_tool": tool, "of_key": key}
        self.session.execute(COMPLETE_KEY, {**keyed, "outcome": result, "ticket": ticket_id})

    def live(self, caller: str, tool: str, key: str, now: datetime) -> KeyRecord | None:
        """Delete this key's record if it has expired, then return its live one (one statement on PostgreSQL)."""
        if self.session.get_bind().dialect.name != "postgresql":
            self.drop_expired(caller, tool, key, now)
            return self.find(caller, tool, key, now)
        rows = driver_writes(self.session, LIVE_KEY_SQL, (caller, tool, key, now) * 2)
        return KeyRecord(arguments=json.loads(rows[0][0]), result=rows[0][1]) if rows else None

    def drop_expired(self, caller: str, tool: str, key: str, now: datetime) -> None:
        """Delete this key's record if it has expired (through the unique index), freeing the key."""
        self.session.execute(DROP_EXPIRED_KEY, {"of_caller": caller, "of_tool": tool, "of_key": key, "now": now})

    def purge_expired(self, now: datetime) -> int:
        """Delete expired records; a key is free again once its record has expired."""
        return deleted(self.session.execute(delete(IdempotencyRecord).where(IdempotencyRecord.expires_at <= now)))


def deleted(result: Result[Any]) -> int:
    """How many rows a DELETE removed."""
    # Session.execute is typed as returning a plain Result; a DELETE's is a CursorResult, which has the count.
    assert isinstance(result, CursorResult)
    return result.rowcount or 0

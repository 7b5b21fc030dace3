"""Payout requests: the pages that take a refund's bank account, found by the call they answer or the page's token."""

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import CursorResult, insert, select, update
from sqlalchemy.orm import Session

from aftersales.clock import as_utc
from aftersales.domain.tickets import Confirmation
from aftersales.storage.base import table_of
from aftersales.storage.payout_rows import PayoutRequest


@dataclass(frozen=True)
class PayoutRow:
    """One payout request as stored (the sealed account stays sealed)."""

    id: str
    caller: str
    idempotency_key: str
    arguments: str
    order_id: str
    line_no: int
    confirmation: Confirmation | None  # the column's CHECK admits only these
    status: str
    expires_at: datetime
    reference: str | None
    account_mask: str | None
    sealed: str | None


_COLUMNS = [getattr(PayoutRequest, name) for name in PayoutRow.__dataclass_fields__]


class PayoutRepository:
    """Every statement on payout_requests; a write that finds the row in another state changes nothing."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def for_call(self, caller: str, key: str) -> PayoutRow | None:
        """The request a caller's idempotency key opened, if any."""
        query = select(*_COLUMNS).where(PayoutRequest.caller == caller, PayoutRequest.idempotency_key == key)
        row = self.session.execute(query).one_or_none()
        return None if row is None else _row(row)

    def for_id(self, request_id: str) -> PayoutRow | None:
        """One request by its id."""
        row = self.session.execute(select(*_COLUMNS).where(PayoutRequest.id == request_id)).one_or_none()
        return None if row is None else _row(row)

    def for_token(self, digest: str) -> PayoutRow | None:
        """The request whose page token hashes to `digest`."""
        row = self.session.execute(select(*_COLUMNS).where(PayoutRequest.token_digest == digest)).one_or_none()
        return None if row is None else _row(row)

    def open(self, values: dict[str, Any]) -> None:
        """Insert a new pending request."""
        self.session.execute(insert(table_of(PayoutRequest)), values)

    def reopen(self, request_id: str, values: dict[str, Any]) -> bool:
        """Give an expired or closed request a fresh page (a new token and lifetime); False if it was answered."""
        statement = (
            update(table_of(PayoutRequest))
            .where(PayoutRequest.id == request_id, PayoutRequest.status.in_(("pending", "closed")))
            .values(**values, status="pending")
        )
        return _changed(self.session.execute(statement))

    def submit(self, request_id: str, now: datetime, reference: str, mask: str, sealed: str) -> bool:
        """Store the account once, while the page is pending and alive; False when it was not (nothing written)."""
        statement = (
            update(table_of(PayoutRequest))
            .where(PayoutRequest.id == request_id, PayoutRequest.status == "pending", PayoutRequest.expires_at > now)
            .values(status="submitted", submitted_at=now, reference=reference, account_mask=mask, sealed=sealed)
        )
        return _changed(self.session.execute(statement))

    def close(self, request_id: str) -> bool:
        """The person closed the page (declined or cancelled): it no longer takes an account."""
        return self._move(request_id, "pending", "closed")

    def use(self, request_id: str) -> bool:
        """The account went into a ticket (whose timeline names the reference): the request is spent."""
        return self._move(request_id, "submitted", "used")

    def _move(self, request_id: str, was: str, now: str) -> bool:
        """One statement: the request from status `was` to `now`; False when it was in another status."""
        statement = (
            update(table_of(PayoutRequest))
            .where(PayoutRequest.id == request_id, PayoutRequest.status == was)
            .values(status=now)
        )
        return _changed(self.session.execute(statement))


def _row(values: Any) -> PayoutRow:
    """A stored row, its time read as UTC (SQLite hands it back without a zone)."""
    row = PayoutRow(*values)
    return replace(row, expires_at=as_utc(row.expires_at))


def _changed(result: Any) -> bool:
    """Whether an UPDATE changed its one row."""
    assert isinstance(result, CursorResult)
    return result.rowcount == 1

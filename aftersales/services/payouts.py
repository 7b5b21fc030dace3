"""Payout pages: open one for a call that refunds by bank transfer, take the account on it once, and hand the
ticket only the masked account and a reference.

A page is a pending request bound to the caller and to the call (its idempotency key and arguments); its link holds
a random token the database keeps only as a SHA-256 digest. The account is sealed (security.payout_keys) before it
is written; nothing else ever holds more than `•••• 4821`.
"""

import hashlib
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from aftersales.domain.callers import Caller
from aftersales.domain.creation import TicketRequest
from aftersales.domain.payouts import PayoutAccount, checked_account
from aftersales.domain.tickets import Confirmation
from aftersales.ids import new_id
from aftersales.security.payout_keys import AccountCipher
from aftersales.services.ports.rows import PayoutRow
from aftersales.services.ports.unit_of_work import UnitOfWork


class PageGone(Exception):
    """The page cannot take an account: `reason` is expired, used, closed or unknown (a forged or foreign token)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


@dataclass(frozen=True)
class PayoutPage:
    """A link a person opens to give the account, and until when it works."""

    request_id: str
    url: str
    expires_at: datetime


@dataclass(frozen=True)
class Payout:
    """What a ticket may know of the account: the masked number and the payout reference."""

    request_id: str
    reference: str
    account_mask: str


@dataclass(frozen=True)
class CallPayout:
    """Where a call's page stands: pending, submitted (with the payout), expired or closed; how it was confirmed."""

    status: str
    confirmation: Confirmation | None
    payout: Payout | None = None


@dataclass(frozen=True)
class PageView:
    """What the page shows before the account is given: the item's order and line, and until when."""

    order_id: str
    line_no: int
    expires_at: datetime


def digest(token: str) -> str:
    """How the database knows a page token (it never holds the token itself)."""
    return hashlib.sha256(token.encode()).hexdigest()


def call_payout(uow: UnitOfWork, caller: Caller, request: TicketRequest, now: datetime) -> CallPayout | None:
    """The page this call opened, if any; one opened for other arguments under the same key does not count."""
    row = uow.payouts.for_call(caller.id, request.idempotency_key)
    if row is None or json.loads(row.arguments) != _arguments(request):
        return None
    return CallPayout(_status(row, now), row.confirmation, _payout(row))


def open_page(
    uow: UnitOfWork,
    caller: Caller,
    request: TicketRequest,
    confirmation: Confirmation | None,
    now: datetime,
    ttl: timedelta,
    link: Callable[[str], str],
) -> PayoutPage:
    """A fresh page for this call (a new token: an older link of the same call stops working), committed."""
    token = secrets.token_urlsafe(32)
    values = {
        "token_digest": digest(token),
        "arguments": json.dumps(_arguments(request), sort_keys=True),
        "order_id": request.order_id,
        "line_no": request.line_no,
        "confirmation": confirmation,
        "created_at": now,
        "expires_at": now + ttl,
    }
    with uow:
        row = uow.payouts.for_call(caller.id, request.idempotency_key)
        if row is None:
            request_id = new_id()
            uow.payouts.open(
                {**values, "id": request_id, "caller": caller.id, "idempotency_key": request.idempotency_key}
                | {"status": "pending"}
            )
        else:
            request_id = row.id
            uow.payouts.reopen(request_id, values)
        uow.commit()
    return PayoutPage(request_id, link(token), now + ttl)


def close_page(uow: UnitOfWork, request_id: str) -> None:
    """The person closed the page without giving an account: its link stops working."""
    with uow:
        uow.payouts.close(request_id)
        uow.commit()


def page_status(uow: UnitOfWork, request_id: str, now: datetime) -> CallPayout | None:
    """Where one page stands now (what a waiting 2025-11-25 call polls)."""
    with uow:
        row = uow.payouts.for_id(request_id)
    return None if row is None else CallPayout(_status(row, now), row.confirmation, _payout(row))


def page_for(uow: UnitOfWork, token: str, now: datetime) -> PageView:
    """The page a token opens; PageGone when it is not one that can still take an account."""
    with uow:
        row = uow.payouts.for_token(digest(token))
    _live(row, now)
    assert row is not None
    return PageView(row.order_id, row.line_no, row.expires_at)


def submit_account(
    uow: UnitOfWork, token: str, holder: str, number: str, bank: str, now: datetime, cipher: AccountCipher
) -> tuple[str, Payout]:
    """Check and seal the account and store it once; (request id, payout). AccountProblems or PageGone otherwise."""
    with uow:
        row = _live(uow.payouts.for_token(digest(token)), now)
        account = checked_account(holder, number, bank)
        payout = Payout(row.id, f"PO-{new_id().replace('-', '')[:8].upper()}", account.masked())
        if not uow.payouts.submit(row.id, now, payout.reference, payout.account_mask, cipher.seal(account)):
            raise PageGone("used")  # a post that raced this one won; nothing was written here
        uow.commit()
    return row.id, payout


def opened(uow: UnitOfWork, request_id: str, cipher: AccountCipher) -> PayoutAccount | None:
    """The account a page took, unsealed: for the payout itself, never for a result, a log or a trace."""
    with uow:
        row = uow.payouts.for_id(request_id)
    return None if row is None or row.sealed is None else cipher.open(row.sealed)


def _live(row: PayoutRow | None, now: datetime) -> PayoutRow:
    """The row of a page that can still take an account; PageGone otherwise."""
    if row is None:
        raise PageGone("unknown")
    status = _status(row, now)
    if status != "pending":
        raise PageGone("used" if status in ("submitted", "used") else status)
    return row


def _status(row: PayoutRow, now: datetime) -> str:
    """pending, submitted, used, closed, or expired (a pending page past its time)."""
    return "expired" if row.status == "pending" and row.expires_at <= now else row.status


def _payout(row: PayoutRow) -> Payout | None:
    """The payout of a page that took an account and was not spent yet."""
    if row.status != "submitted" or row.reference is None or row.account_mask is None:
        return None
    return Payout(row.id, row.reference, row.account_mask)


def _arguments(request: TicketRequest) -> dict[str, object]:
    """The arguments a page is bound to, as JSON would read them back."""
    loaded: dict[str, object] = json.loads(json.dumps(request.arguments(), sort_keys=True))
    return loaded

"""Idempotency keys of ticket creation: find a key's record, claim it, replay its first result, or refuse a change.

A key is scoped to (caller, tool, key). Its record is inserted inside the creating transaction, before any rule
is checked, under a unique constraint, so a concurrent call with the same key waits for the first and replays it.
"""

from datetime import datetime, timedelta

from aftersales.domain.callers import Caller
from aftersales.domain.calls import CREATE_TICKET
from aftersales.domain.creation import KeyRecord, TicketRequest, differing_fields, idempotency_conflict
from aftersales.domain.errors import Retryable
from aftersales.services.housekeeping import Occasionally
from aftersales.services.views import CreateResult
from aftersales.storage.unit_of_work import UnitOfWork

TOOL = CREATE_TICKET
PURGE = Occasionally()


def find(uow: UnitOfWork, caller: Caller, request: TicketRequest, now: datetime) -> CreateResult | None:
    """The replay of this key's first result if it has one; a changed request is refused; None if the key is new."""
    record = uow.idempotency.find(caller.id, TOOL, request.idempotency_key, now)
    return None if record is None else replay(record, request)


def replay(record: KeyRecord, request: TicketRequest) -> CreateResult:
    """The stored result of the key's first call, or the error naming what changed."""
    fields = differing_fields(record.arguments, request.arguments())
    if fields:
        raise idempotency_conflict(request.idempotency_key, fields, record.arguments, request.arguments())
    if record.result is None:  # only visible to a reader racing the creating transaction
        raise Retryable(
            f'A request with idempotency_key "{request.idempotency_key}" is still being processed.',
            "One key creates at most one ticket; the first call is finishing now.",
            "Retry the same call in 1 second to receive its result.",
            retry_after=1.0,
        )
    first = CreateResult.model_validate_json(record.result)
    ticket_id = first.ticket.ticket_id if first.ticket else "the ticket"
    return first.model_copy(
        update={
            "outcome": "replayed",
            "next_step": f"This request was already handled: {ticket_id} was created by the first call and no "
            f"new ticket was made. Do not call again; use after_sales_query_ticket with {ticket_id} for its current "
            "state.",
        }
    )


def claim(
    uow: UnitOfWork, caller: Caller, request: TicketRequest, now: datetime, ttl: timedelta
) -> CreateResult | None:
    """Claim the key inside the creating transaction (result still empty); if it already answered, its replay."""
    key = request.idempotency_key
    # This key's own expired record must go before it can be claimed again; the rest only now and then.
    uow.idempotency.drop_expired(caller.id, TOOL, key, now)
    if PURGE.due(now):
        uow.idempotency.purge_expired(now)
    existing = find(uow, caller, request, now)
    if existing is not None:
        return existing
    # Claimed before any rule is checked: a concurrent call with the same key now waits on (or fails) the unique
    # constraint instead of racing us through the rules. A broken rule rolls the claim back.
    uow.idempotency.claim(caller.id, TOOL, key, request.arguments(), now, now + ttl)
    return None


def remember(uow: UnitOfWork, caller: Caller, request: TicketRequest, result: CreateResult) -> None:
    """Store the first call's result under its key, for every retry to replay."""
    ticket_id = result.ticket.ticket_id if result.ticket else None
    uow.idempotency.complete(caller.id, TOOL, request.idempotency_key, result.model_dump_json(), ticket_id)

"""Idempotency keys of the write tools: find a key's record, claim it, replay its first result, or refuse a change.

A key is scoped to (caller, tool, key). Its record is inserted inside the writing transaction, before any rule is
checked, under a unique constraint, so a concurrent call with the same key waits for the first and replays it.
`Keys.assess` and `Keys.write_once` are the one flow both write tools run: a used key replays, and a write that loses
a race is answered as the second caller would be. `CREATION` and `CANCELLATION` are the keys of
after_sales_create_ticket and after_sales_cancel_ticket.
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Generic, Protocol, TypeVar

from aftersales.domain.callers import Caller
from aftersales.domain.calls import CANCEL_TICKET, CREATE_TICKET
from aftersales.domain.creation import KeyRecord, differing_fields, idempotency_conflict
from aftersales.domain.errors import AfterSalesError, Retryable
from aftersales.services.housekeeping import Occasionally
from aftersales.services.ports.rows import Conflict, KeyResult
from aftersales.services.ports.unit_of_work import UnitOfWork
from aftersales.services.views import CancelResult, CreateResult

log = logging.getLogger(__name__)
PURGE = Occasionally()
Result = TypeVar("Result", CreateResult, CancelResult)
Assessed = TypeVar("Assessed")  # what a tool's rules make of a request (creation's Assessment, say)
Replay = TypeVar("Replay", covariant=True)


class Assessment(Protocol[Replay]):
    """What a tool's rules made of a request: among the rest, the replay when its key had already answered."""

    @property
    def replay(self) -> Replay | None:
        """The key's first result, replayed; None for a new request."""
        ...


class KeyedRequest(Protocol):
    """A write request: its key, and the arguments the key remembers and compares."""

    @property
    def idempotency_key(self) -> str:
        """The caller's key for this intended change."""
        ...

    def arguments(self) -> dict[str, Any]:
        """The call's arguments with defaults applied, minus the key itself."""
        ...


@dataclass(frozen=True)
class Keys(Generic[Result]):
    """The idempotency keys of one tool: what its results are, and what a replay tells the model."""

    tool: str
    result: type[Result]
    intent: str  # what one key stands for, in the error for a changed request
    replayed: Callable[[str], str]  # the next step of a replay, given the ticket's number

    def find(self, uow: UnitOfWork, caller: Caller, request: KeyedRequest, now: datetime) -> Result | None:
        """The replay of this key's first result if it has one; a changed request is refused; None if it is new."""
        record = uow.idempotency.find(caller.id, self.tool, request.idempotency_key, now)
        return None if record is None else self.replay(record, request)

    def replay(self, record: KeyRecord, request: KeyedRequest) -> Result:
        """The stored result of the key's first call, or the error naming what changed."""
        key, current = request.idempotency_key, request.arguments()
        fields = differing_fields(record.arguments, current)
        if fields:
            raise idempotency_conflict(key, fields, record.arguments, current, self.intent)
        if record.result is None:  # only visible to a reader racing the writing transaction
            raise Retryable(
                f'A request with idempotency_key "{key}" is still being processed.',
                f"One key makes at most one {self.intent}; the first call is finishing now.",
                "Retry the same call in 1 second to receive its result.",
                retry_after=1.0,
            )
        first = self.result.model_validate_json(record.result)
        ticket_id = first.ticket.ticket_id if first.ticket else "the ticket"
        return first.model_copy(update={"outcome": "replayed", "next_step": self.replayed(ticket_id)})

    def claim(
        self, uow: UnitOfWork, caller: Caller, request: KeyedRequest, now: datetime, ttl: timedelta
    ) -> Result | None:
        """Claim the key inside the writing transaction (result still empty); if it already answered, its replay."""
        key = request.idempotency_key
        # This key's own expired record must go before it can be claimed again; the rest only now and then.
        record = uow.idempotency.live(caller.id, self.tool, key, now)
        if PURGE.due(now):
            uow.idempotency.purge_expired(now)
        if record is not None:
            return self.replay(record, request)
        # Claimed before any rule is checked: a concurrent call with the same key now waits on (or fails) the unique
        # constraint instead of racing us through the rules. A broken rule rolls the claim back.
        uow.idempotency.claim(caller.id, self.tool, key, request.arguments(), now, now + ttl)
        return None

    def assess(
        self,
        uow: UnitOfWork,
        caller: Caller,
        request: KeyedRequest,
        now: datetime,
        rules: Callable[[], Assessed],
        replayed: Callable[[Result], Assessed],
        key_claimed: bool = False,
    ) -> Assessed:
        """What `rules` make of the request (a broken rule is raised), or, for a used key, `replayed` of its replay."""
        if not key_claimed and (replay := self.find(uow, caller, request, now)) is not None:
            return replayed(replay)
        try:
            return rules()
        except AfterSalesError:
            if not key_claimed:
                # Read committed: a same-key call may have committed between our key lookup and the rule that failed
                # (its new open ticket, its cancellation). Its record then answers for us.
                late = self.find(uow, caller, request, now)
                if late is not None:
                    return replayed(late)
            raise

    def write_once(
        self,
        uow: UnitOfWork,
        caller: Caller,
        request: KeyedRequest,
        now: datetime,
        ttl: timedelta,
        write: Callable[[], Result],
        reassess: Callable[[], Assessment[Result]],
        raced: Callable[[], Retryable],
    ) -> Result:
        """Claim the key, `write` and commit in one transaction; a race lost to a concurrent call is answered again.

        `write` checks the rules with the key claimed and stores the key's result with what it writes; it raises
        `Conflict` when a constraint (or a compare-and-set) finds that another transaction got there first. Then
        `reassess` looks at the request afresh, in a unit of work of its own: it answers with the winner's replay
        if the winner had the same key, or raises a rule the request now breaks; if neither, the call is told to
        retry (`raced`).
        """
        try:
            with uow:
                replay = self.claim(uow, caller, request, now, ttl)
                if replay is not None:
                    return replay
                result = write()
                uow.commit()
                return result
        except Conflict:
            # A concurrent call won the race for this key or what it writes; answer as if we had come second.
            log.info("%s lost a race for key %s; re-reading", self.tool, request.idempotency_key)
        with uow:
            second = reassess()
        if second.replay is not None:
            return second.replay
        raise raced()

    def completion(self, caller: Caller, request: KeyedRequest, result: Result) -> KeyResult:
        """The key's record completed with `result`, for storage to write with the ticket it numbers."""
        return KeyResult(caller.id, self.tool, request.idempotency_key, result.model_dump_json())

    def remember(self, uow: UnitOfWork, caller: Caller, request: KeyedRequest, result: Result) -> None:
        """Store the first call's result under its key, for every retry to replay."""
        ticket_id = result.ticket.ticket_id if result.ticket else None
        uow.idempotency.complete(caller.id, self.tool, request.idempotency_key, result.model_dump_json(), ticket_id)


CREATION = Keys(
    CREATE_TICKET,
    CreateResult,
    "ticket",
    lambda ticket_id: (
        f"This request was already handled: {ticket_id} was created by the first call and no new "
        f"ticket was made. Do not call again; use after_sales_query_ticket with {ticket_id} for its current state."
    ),
)
CANCELLATION = Keys(
    CANCEL_TICKET,
    CancelResult,
    "cancellation",
    lambda ticket_id: (
        f"This request was already handled: {ticket_id} was cancelled by the first call and nothing "
        f"changed now. Do not call again; use after_sales_query_ticket with {ticket_id} for its current state."
    ),
)

"""The repositories a unit of work holds, as the services use them: each method one query or one write."""

from datetime import datetime
from typing import Any, Protocol

from aftersales.domain.creation import KeyRecord
from aftersales.domain.enums import TicketStatus
from aftersales.domain.lookups import CustomerKey, TicketScope
from aftersales.domain.paging import Position
from aftersales.domain.quotes import Quote
from aftersales.domain.tickets import NewTicket, TimelineEntry
from aftersales.services.ports.rows import (
    KeyResult,
    LineFactsRow,
    LineName,
    OrderRow,
    PayoutRow,
    TicketDetails,
    TicketWithTimeline,
    ToolFigures,
)


class TicketRepository(Protocol):
    """Tickets and their timelines."""

    def view(self, ticket_id: str, limit: int) -> TicketWithTimeline | None:
        """The ticket, its newest `limit` events oldest first and the timeline's length; None if unknown."""
        ...

    def opened_since(self, customer_id: str, since: datetime) -> int:
        """How many tickets a customer opened since `since`."""
        ...

    def open(self, draft: NewTicket, events: list[TimelineEntry], key: KeyResult) -> str:
        """Number a drafted ticket and write it, its events and its key's result; return its number."""
        ...

    def move(self, ticket_id: str, current: TicketStatus, new: TicketStatus, at: datetime) -> bool:
        """Change a ticket's status only while it still is `current`; say whether it changed."""
        ...

    def record(self, ticket_id: str, events: list[TimelineEntry]) -> None:
        """Add events to a ticket's timeline, in their order."""
        ...

    def by_channel(self, since: datetime) -> list[tuple[str, str | None, int]]:
        """(opened | cancelled, channel or None, how many): tickets opened and cancellations at or after `since`."""
        ...


class OrderRepository(Protocol):
    """Orders and their lines."""

    def line_facts(self, order_id: str, line_no: int) -> LineFactsRow | None:
        """The line and what policy needs about it, or None for an unknown order (line_no None: no such line)."""
        ...

    def order_line_facts(self, order_id: str) -> list[LineFactsRow]:
        """What policy needs about every line of an order, in line order (none for an unknown order)."""
        ...

    def lines(self, order_id: str) -> list[tuple[int, str, int]]:
        """(line number, product name, quantity) of every line of an order."""
        ...


class QuoteRepository(Protocol):
    """Refund quotes; every read is scoped to the owner."""

    def add(self, quote: Quote) -> None:
        """Store a new quote."""
        ...

    def get_owned(self, quote_id: str, owner: str) -> Quote | None:
        """The quote if it exists and belongs to `owner`; someone else's reads as missing."""
        ...

    def purge_expired_before(self, cutoff: datetime) -> int:
        """Delete quotes that expired before `cutoff`; return how many."""
        ...


class IdempotencyRepository(Protocol):
    """Idempotency records, unique per (caller, tool, key): a second claim of a live key raises Conflict."""

    def find(self, caller: str, tool: str, key: str, now: datetime) -> KeyRecord | None:
        """The live record for this key, if any."""
        ...

    def claim(
        self, caller: str, tool: str, key: str, arguments: dict[str, Any], now: datetime, until: datetime
    ) -> None:
        """Insert the key's record, result still empty, live until `until`."""
        ...

    def complete(self, caller: str, tool: str, key: str, result: str, ticket_id: str | None) -> None:
        """Store the result of the key's first call, with the ticket it created."""
        ...

    def live(self, caller: str, tool: str, key: str, now: datetime) -> KeyRecord | None:
        """Delete this key's record if it has expired, then return its live one."""
        ...

    def purge_expired(self, now: datetime) -> int:
        """Delete expired records; return how many."""
        ...


class ListingRepository(Protocol):
    """Orders by customer, an order's header and lines, tickets by customer or order: keyset pages, newest first."""

    def orders_of(self, key: CustomerKey, after: Position | None, limit: int) -> list[OrderRow]:
        """The orders of the customers `key` names, after `after`, one more than the page holds."""
        ...

    def order(self, order_id: str) -> OrderRow | None:
        """One order's header, or None."""
        ...

    def line_names(self, order_ids: list[str]) -> list[LineName]:
        """Every line of the given orders in words, by order and line number."""
        ...

    def tickets_of(self, scope: TicketScope, after: Position | None, limit: int) -> list[TicketDetails]:
        """The tickets of one customer or one order, after `after`, one more than the page holds."""
        ...


class PayoutRepository(Protocol):
    """Payout requests; a write that finds the row in another state changes nothing and says so."""

    def for_call(self, caller: str, key: str) -> PayoutRow | None:
        """The request a caller's idempotency key opened, if any."""
        ...

    def for_id(self, request_id: str) -> PayoutRow | None:
        """One request by its id."""
        ...

    def for_token(self, digest: str) -> PayoutRow | None:
        """The request whose page token hashes to `digest`."""
        ...

    def open(self, values: dict[str, Any]) -> None:
        """Insert a new pending request."""
        ...

    def reopen(self, request_id: str, values: dict[str, Any]) -> bool:
        """Give an expired or closed request a fresh page; False if it was answered."""
        ...

    def submit(self, request_id: str, now: datetime, reference: str, mask: str, sealed: str) -> bool:
        """Store the account once, while the page is pending and alive; False when it was not."""
        ...

    def close(self, request_id: str) -> bool:
        """The person closed the page: it no longer takes an account."""
        ...

    def use(self, request_id: str) -> bool:
        """The account went into a ticket: the request is spent."""
        ...


class ToolCallRepository(Protocol):
    """The audit of tool calls, as the statistics read it."""

    def figures(self, since: datetime) -> list[ToolFigures]:
        """Each tool's figures for calls at or after `since`, in no particular order."""
        ...

"""The unit of work every use case runs in: its repositories, and a transaction that rolls back unless committed."""

from types import TracebackType
from typing import Protocol, Self

from aftersales.services.ports.repositories import (
    IdempotencyRepository,
    ListingRepository,
    OrderRepository,
    PayoutRepository,
    QuoteRepository,
    TicketRepository,
    ToolCallRepository,
)


class UnitOfWork(Protocol):
    """One transaction and the repositories that work inside it; the repositories exist once it is entered.

    Leaving the `with` block discards whatever was not committed, on success and on error alike; a write a
    constraint refused leaves it as `Conflict` (services.ports.rows).
    """

    tickets: TicketRepository
    orders: OrderRepository
    quotes: QuoteRepository
    idempotency: IdempotencyRepository
    listings: ListingRepository
    payouts: PayoutRepository
    tool_calls: ToolCallRepository

    def __enter__(self) -> Self:
        """Begin the transaction."""
        ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Roll back whatever was not committed."""
        ...

    def commit(self) -> None:
        """Make the work of this unit durable."""
        ...

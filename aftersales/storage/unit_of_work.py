"""One unit of work per use case: it rolls back unless `commit()` is called."""

from types import TracebackType
from typing import Self

from sqlalchemy.orm import Session, sessionmaker

from aftersales.storage.database import WRITE
from aftersales.storage.repositories import (
    IdempotencyRepository,
    OrderRepository,
    QuoteRepository,
    TicketRepository,
)


class UnitOfWork:
    """A database transaction and the repositories that work inside it."""

    session: Session
    tickets: TicketRepository
    orders: OrderRepository
    quotes: QuoteRepository
    idempotency: IdempotencyRepository

    def __init__(self, session_factory: sessionmaker[Session], write: bool = False) -> None:
        self._session_factory = session_factory
        self._write = write

    def __enter__(self) -> Self:
        self.session = self._session_factory()
        if self._write:
            # On SQLite this begins with BEGIN IMMEDIATE (see storage.database); elsewhere it is a no-op hint.
            self.session.connection(execution_options={WRITE: True})
        self.tickets = TicketRepository(self.session)
        self.orders = OrderRepository(self.session)
        self.quotes = QuoteRepository(self.session)
        self.idempotency = IdempotencyRepository(self.session)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        # Anything not committed explicitly is discarded, on success and on error alike.
        self.session.rollback()
        self.session.close()

    def commit(self) -> None:
        """Make the work of this unit durable."""
        self.session.commit()

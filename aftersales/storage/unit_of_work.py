"""One unit of work per use case: it rolls back unless `commit()` is called."""

from types import TracebackType
from typing import Self

from sqlalchemy.orm import Session, sessionmaker

from aftersales.storage.repositories import CatalogRepository, OrderRepository, QuoteRepository, TicketRepository


class UnitOfWork:
    """A database transaction and the repositories that work inside it."""

    session: Session
    tickets: TicketRepository
    orders: OrderRepository
    catalog: CatalogRepository
    quotes: QuoteRepository

    def __init__(self, session_factory: sessionmaker[Session]) -> None:
        self._session_factory = session_factory

    def __enter__(self) -> Self:
        self.session = self._session_factory()
        self.tickets = TicketRepository(self.session)
        self.orders = OrderRepository(self.session)
        self.catalog = CatalogRepository(self.session)
        self.quotes = QuoteRepository(self.session)
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

"""One unit of work per use case: it rolls back unless `commit()` is called, and speaks the project's exceptions."""

from threading import RLock
from types import TracebackType
from typing import Self

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from aftersales.domain.errors import ServiceUnavailable
from aftersales.storage.database import WRITE, WRITE_LOCK_TIMEOUT, write_lock
from aftersales.storage.driver import ONE_STATEMENT
from aftersales.storage.errors import database_errors, translate
from aftersales.storage.handles import IdempotencyRepository, QuoteRepository
from aftersales.storage.listings import ListingRepository
from aftersales.storage.payouts import PayoutRepository
from aftersales.storage.repositories import OrderRepository, TicketRepository
from aftersales.storage.tool_calls import ToolCallRepository


class UnitOfWork:
    """A database transaction and the repositories that work inside it.

    Driver exceptions raised inside the `with` block leave it translated (storage.errors): a refused write as
    `Conflict`, an unreachable database as `ServiceUnavailable`.
    """

    session: Session
    tickets: TicketRepository
    orders: OrderRepository
    quotes: QuoteRepository
    idempotency: IdempotencyRepository
    tool_calls: ToolCallRepository
    listings: ListingRepository
    payouts: PayoutRepository

    def __init__(
        self, session_factory: sessionmaker[Session], write: bool = False, one_statement: bool = False
    ) -> None:
        self._session_factory = session_factory
        self._write = write
        # A read that is one driver statement runs it outside any transaction (storage.driver); a second one raises.
        self._one_statement = one_statement and not write

    def __enter__(self) -> Self:
        self.session = self._session_factory()
        if self._one_statement:
            self.session.info[ONE_STATEMENT] = "unused"
        self._lock: RLock | None = None
        if self._write:
            # On SQLite this begins with BEGIN IMMEDIATE (see storage.database), after this process's other writers;
            # elsewhere it is a no-op hint.
            try:
                self._take_write_lock()
                with database_errors():
                    self.session.connection(execution_options={WRITE: True})
            except BaseException:
                self._release_write_lock()
                self.session.close()
                raise
        self.tickets = TicketRepository(self.session)
        self.orders = OrderRepository(self.session)
        self.quotes = QuoteRepository(self.session)
        self.idempotency = IdempotencyRepository(self.session)
        self.tool_calls = ToolCallRepository(self.session)
        self.listings = ListingRepository(self.session)
        self.payouts = PayoutRepository(self.session)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        # Anything not committed explicitly is discarded, on success and on error alike.
        try:
            with database_errors():
                try:
                    self.session.rollback()
                finally:
                    self.session.close()
        finally:
            self._release_write_lock()
        if exc is not None and (translated := translate(exc)) is not exc:
            raise translated from exc

    def _take_write_lock(self) -> None:
        lock = write_lock(engine) if isinstance(engine := self.session.get_bind(), Engine) else None
        if lock is not None:
            if not lock.acquire(timeout=WRITE_LOCK_TIMEOUT):
                raise ServiceUnavailable()  # what SQLite's busy timeout would have ended in
            self._lock = lock

    def _release_write_lock(self) -> None:
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.release()

    def commit(self) -> None:
        """Make the work of this unit durable."""
        self.session.commit()

"""One unit of work per use case: it rolls back unless `commit()` is called, and speaks the project's exceptions."""

from threading import RLock
from types import TracebackType
from typing import Self

from opentelemetry.trace import Span, StatusCode
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from aftersales.domain.errors import ServiceUnavailable
from aftersales.otel.switch import child_span
from aftersales.otel.switch import enabled as traced
from aftersales.services.ports.rows import Conflict
from aftersales.services.ports.unit_of_work import UnitOfWork
from aftersales.storage.database import WRITE, WRITE_LOCK_TIMEOUT, refuse_loop_write, write_lock
from aftersales.storage.database_errors import database_errors, translate
from aftersales.storage.driver_cursor import ONE_STATEMENT
from aftersales.storage.handles import SqlIdempotencyRepository, SqlQuoteRepository
from aftersales.storage.listings import SqlListingRepository
from aftersales.storage.payouts import SqlPayoutRepository
from aftersales.storage.repositories import SqlOrderRepository, SqlTicketRepository
from aftersales.storage.tool_calls import SqlToolCallRepository

DATABASE_FAILURES = (Conflict, ServiceUnavailable)  # what driver exceptions leave a unit as (database_errors)


class SqlUnitOfWork(UnitOfWork):
    """A database transaction and the repositories that work inside it (the services' port, on SQLAlchemy).

    Driver exceptions raised inside the `with` block leave it translated (storage.database_errors): a refused write as
    `Conflict`, an unreachable database as `ServiceUnavailable`.
    """

    session: Session
    tickets: SqlTicketRepository
    orders: SqlOrderRepository
    quotes: SqlQuoteRepository
    idempotency: SqlIdempotencyRepository
    tool_calls: SqlToolCallRepository
    listings: SqlListingRepository
    payouts: SqlPayoutRepository

    def __init__(
        self, session_factory: sessionmaker[Session], write: bool = False, one_statement: bool = False
    ) -> None:
        self._session_factory = session_factory
        self._write = write
        # A read that is one driver statement runs it outside any transaction (driver_cursor); a second one raises.
        self._one_statement = one_statement and not write

    def __enter__(self) -> Self:
        self.session = self._session_factory()
        self._span = self._open_span()
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
            except BaseException as error:
                self._release_write_lock()
                self.session.close()
                self._end_span(error)
                raise
        self.tickets = SqlTicketRepository(self.session)
        self.orders = SqlOrderRepository(self.session)
        self.quotes = SqlQuoteRepository(self.session)
        self.idempotency = SqlIdempotencyRepository(self.session)
        self.tool_calls = SqlToolCallRepository(self.session)
        self.listings = SqlListingRepository(self.session)
        self.payouts = SqlPayoutRepository(self.session)
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
        if exc is None:
            self._end_span(None)
            return
        translated = translate(exc)
        self._end_span(translated)
        if translated is not exc:
            raise translated from exc

    def _open_span(self) -> Span | None:
        """The unit's span in the request's trace (None when traces are off): one per unit, not one per statement.

        Hot reads run on the driver's cursor (storage.driver_cursor), where no SQLAlchemy event sees them; around the
        unit, every statement of it is inside, the wait for SQLite's write lock included.
        """
        if not traced():
            return None
        return child_span(
            f"unit_of_work {'write' if self._write else 'read'}",
            {"db.system.name": self.session.get_bind().dialect.name, "aftersales.db.write": self._write},
        )

    def _end_span(self, error: BaseException | None) -> None:
        """End the unit's span; a database failure marks it failed, a domain error raised inside the unit does not."""
        span, self._span = self._span, None
        if span is None:
            return
        if isinstance(error, DATABASE_FAILURES):
            span.set_attribute("error.type", type(error).__name__)
            span.set_status(StatusCode.ERROR)
        span.end()

    def _take_write_lock(self) -> None:
        lock = write_lock(engine) if isinstance(engine := self.session.get_bind(), Engine) else None
        if lock is not None:
            refuse_loop_write()  # never wait for the lock on the event loop
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
        if self._span is not None:
            self._span.set_attribute("aftersales.db.committed", True)

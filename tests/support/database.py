"""Reading a test's database directly (row counts, an engine for a URL a child process uses), and writes rolled back."""

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, func, select

from aftersales.app import App
from aftersales.storage.database import make_engine
from aftersales.storage.models import Base, Ticket
from aftersales.storage.unit_of_work import UnitOfWork


@contextmanager
def engine_at(url: str) -> Iterator[Engine]:
    """An engine on `url`, disposed when the block ends."""
    engine = make_engine(url)
    try:
        yield engine
    finally:
        engine.dispose()


def count_rows(engine: Engine, table: type[Base] = Ticket) -> int:
    """How many rows `table` holds (tickets unless another model is named)."""
    with engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(table)) or 0


def row_counts(engine: Engine) -> dict[str, int]:
    """How many rows each table of the models holds."""
    with engine.connect() as connection:
        return {
            t.name: connection.scalar(select(func.count()).select_from(t)) or 0 for t in Base.metadata.sorted_tables
        }


class RolledBack(UnitOfWork):
    """A unit of work whose commit only flushes: a use case runs every statement and constraint, then leaves nothing."""

    def __init__(self, app: App, write: bool = True) -> None:
        super().__init__(app.session_factory, write=write)

    def commit(self) -> None:
        """Send the work to the database (constraints apply), and let the end of the unit roll it back."""
        self.session.flush()

"""Reading a test's database directly (row counts, every row and what changed, an engine for a URL a child process
uses), and writes rolled back."""

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, func, inspect, select, text

from aftersales.app import App
from aftersales.storage.database import make_engine
from aftersales.storage.models import Base, Ticket
from aftersales.storage.unit_of_work import SqlUnitOfWork


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
    """How many rows each table of the models holds (of those the database has: an older revision lacks some)."""
    with engine.connect() as connection:
        present = set(inspect(connection).get_table_names())
        return {
            t.name: connection.scalar(select(func.count()).select_from(t)) or 0
            for t in Base.metadata.sorted_tables
            if t.name in present
        }


Rows = dict[str, dict[tuple[Any, ...], dict[str, Any]]]  # table -> primary key -> column -> value


def all_rows(engine: Engine, leave_out: tuple[str, ...] = ("tool_calls",)) -> Rows:
    """Every row of every table (but the audit, which a background thread writes), keyed by primary key."""
    rows: Rows = {}
    with engine.connect() as connection:
        for table in Base.metadata.sorted_tables:
            if table.name not in leave_out:
                keys = [column.name for column in table.primary_key.columns]
                found = connection.execute(select(table)).mappings()
                rows[table.name] = {tuple(row[key] for key in keys): dict(row) for row in found}
    return rows


@dataclass(frozen=True)
class TableChange:
    """What one table gained, lost, and which columns of its other rows changed (to their new values)."""

    added: dict[tuple[Any, ...], dict[str, Any]]
    removed: dict[tuple[Any, ...], dict[str, Any]]
    changed: dict[tuple[Any, ...], dict[str, Any]]


def changes(before: Rows, after: Rows) -> dict[str, TableChange]:
    """The tables whose rows differ between two `all_rows` readings, and how."""
    found = {}
    for name, old in before.items():
        new = after[name]
        change = TableChange(
            added={key: row for key, row in new.items() if key not in old},
            removed={key: row for key, row in old.items() if key not in new},
            changed={
                key: {column: value for column, value in row.items() if old[key][column] != value}
                for key, row in new.items()
                if key in old and row != old[key]
            },
        )
        if change.added or change.removed or change.changed:
            found[name] = change
    return found


class RolledBack(SqlUnitOfWork):
    """A unit of work whose commit only flushes: a use case runs every statement and constraint, then leaves nothing."""

    def __init__(self, app: App, write: bool = True) -> None:
        super().__init__(app.session_factory, write=write)

    def commit(self) -> None:
        """Send the work to the database (constraints apply), and let the end of the unit roll it back."""
        self.session.flush()


# Single-line orders delivered in the last few days, returnable, with no ticket yet: each takes a return of line 1.
# Six days, within the shortest return window (seven): the data is shifted by whole days, so how many orders fall in
# depends on the hour, and test_balancer.py takes 22; five days held 20 to 23 of them by the hour, six hold 25 or more.
# The line is fixed when the session starts, not at each query's now(), so a long run loses none between tests.
RECENT_SINCE = datetime.now(UTC) - timedelta(days=6)
UNTOUCHED_ORDERS = text(
    "SELECT o.id FROM orders o JOIN order_lines l ON l.order_id = o.id JOIN products p ON p.sku = l.sku "
    "WHERE o.status = 'delivered' AND o.delivered_at > :since AND p.returnable "
    "AND o.payment_method <> 'gift_card' AND NOT EXISTS (SELECT 1 FROM tickets t WHERE t.order_id = o.id) "
    # Counted apart from the join: filtered by p.returnable first, an order whose other line is not returnable
    # would pass as a single-line one (which order that is depends on the hour the data was anchored).
    "AND (SELECT count(*) FROM order_lines n WHERE n.order_id = o.id) = 1 ORDER BY o.id LIMIT :count"
)


def untouched_orders(url: str, count: int) -> list[str]:
    """`count` orders of the PostgreSQL database at `url` whose line 1 is open to a return (fails if fewer)."""
    with engine_at(url) as engine, engine.connect() as connection:
        found = list(connection.scalars(UNTOUCHED_ORDERS, {"count": count, "since": RECENT_SINCE}))
    assert len(found) == count, f"only {len(found)} untouched orders"
    return found

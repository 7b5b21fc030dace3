"""Bulk loading for generated worlds: indexes off during the load, rows written on the driver by worker processes."""

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine

from aftersales.storage.database import WRITE, make_engine
from aftersales.storage.models import Base

# The columns each table is written with, in the models' order.
COLUMNS = {
    name: tuple(column.name for column in Base.metadata.tables[name].columns)
    for name in ("orders", "order_lines", "tickets", "ticket_events")
}


def bulk_mode(connection: Connection, on: bool) -> None:
    """Drop secondary indexes (and on SQLite leave WAL) for the load; rebuild them once at the end."""
    indexes = [index for table in COLUMNS for index in Base.metadata.tables[table].indexes]
    with connection.begin():
        for index in indexes:
            (index.drop if on else index.create)(connection)
    if connection.dialect.name == "sqlite":
        raw = connection.connection.dbapi_connection  # outside any transaction, where journal changes must run
        assert raw is not None
        raw.execute("PRAGMA journal_mode=DELETE" if on else "PRAGMA journal_mode=WAL")


_worker_engines: dict[str, Engine] = {}


def write_rows(url: str, batches: list[tuple[str, list[tuple[Any, ...]]]]) -> None:
    """Insert row tuples (in COLUMNS order) with raw executemany in one transaction, from a worker process."""
    engine = _worker_engines.get(url)
    if engine is None:
        engine = _worker_engines[url] = make_engine(url, wal=False)
    with engine.connect() as connection:
        # Workers write concurrently: on SQLite each takes the write lock up front (BEGIN IMMEDIATE), since two
        # deferred writers can deadlock in rollback-journal mode.
        connection.execution_options(**{WRITE: True})
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            raw = connection.connection.dbapi_connection
            assert raw is not None
            # A generated world can be generated again; journaling and fsyncs buy nothing here.
            for pragma in ("journal_mode=MEMORY", "synchronous=OFF", "foreign_keys=OFF", "cache_size=-131072"):
                raw.execute(f"PRAGMA {pragma}")
        marker = "?" if sqlite else "%s"
        with connection.begin():
            for table, rows in batches:
                columns = COLUMNS[table]
                statement = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join([marker] * len(columns))})"
                connection.exec_driver_sql(statement, rows)


def as_row(table: str, values: dict[str, Any], sqlite: bool) -> tuple[Any, ...]:
    """A row's values in the table's COLUMNS order, times as the dialect stores them."""
    return tuple(sql_time(values[c], sqlite) if c.endswith("_at") else values[c] for c in COLUMNS[table])


def sql_time(moment: datetime | None, sqlite: bool) -> Any:
    """A timestamp as the dialect stores it: SQLAlchemy's SQLite text format, or the datetime itself."""
    if moment is None or not sqlite:
        return moment
    return moment.isoformat(" ", "microseconds")[:26]  # drops the +00:00 that SQLAlchemy does not store

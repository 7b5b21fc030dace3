"""Reading whole business tables for snapshots, and moving a generated database's dates: the SQL of both."""

from collections.abc import Mapping
from dataclasses import dataclass
from hashlib import sha256
from typing import Any

from sqlalchemy import Connection, Engine, Table, select, text

from aftersales.storage.base import UtcDateTime
from aftersales.storage.models import Base
from aftersales.worlds.storage import changes


def business_tables() -> dict[str, Table]:
    """Every table of the service's data, by name, in foreign-key order."""
    return {table.name: table for table in Base.metadata.sorted_tables}


@dataclass(frozen=True)
class Printed:
    """A table's rows as read, with its print: equal prints mean equal rows."""

    print: str
    rows: list[dict[str, Any]]
    changes: int | None = None  # its write counter (storage.changes), when the database keeps one


def read_tables(engine: Engine, names: list[str], known: Mapping[str, Printed] | None = None) -> dict[str, Printed]:
    """Every row of the named tables as plain dicts with each table's print, read in one transaction.

    A table whose print equals its print in `known` (an earlier read of the same world's origin) is not read
    again: its rows are `known`'s, the same list. An episode leaves most of a world's tables as they were, and the
    database writes a table's print far faster than the driver hands over its rows. Where the database counts its
    writes (storage.changes), a table whose counter is `known`'s is not even printed.
    """
    tables = business_tables()
    read: dict[str, Printed] = {}
    with engine.connect() as connection, connection.begin():
        wanted = [name for name in names if name in tables]
        counted = changes.counts(connection, wanted)
        for name in wanted:
            earlier = (known or {}).get(name)
            if earlier is not None and earlier.changes is not None and earlier.changes == counted.get(name):
                read[name] = earlier
        printing = [name for name in wanted if name not in read]
        prints = _prints(connection, [tables[name] for name in printing])
        for name, printed in zip(printing, prints, strict=True):
            earlier = (known or {}).get(name)
            if earlier is not None and earlier.print == printed:
                read[name] = earlier
                continue
            result = connection.execute(select(tables[name]))
            columns = list(result.keys())
            # Zipped with the column names: twice as fast as a Row's mapping, and the same dicts.
            rows = [dict(zip(columns, row, strict=True)) for row in result.all()]
            read[name] = Printed(printed, rows, counted.get(name))
    return {name: read[name] for name in wanted}


def _prints(connection: Connection, tables: list[Table]) -> list[str]:
    """Each table's print, in one statement: every row's every column as an SQL literal, in primary-key order.

    SQLite's quote() and PostgreSQL's row-to-text both write each value so that the text of a table names its rows
    and values exactly (a literal ends where its quoting says); PostgreSQL hashes the text where it is made.
    """
    if not tables:
        return []
    sqlite = connection.dialect.name == "sqlite"
    quoted = connection.dialect.identifier_preparer.quote
    parts = []
    for table in tables:
        name = quoted(table.name)
        order = ", ".join(quoted(column.name) for column in table.primary_key.columns)
        if sqlite:
            row = " || ',' || ".join(f"quote({quoted(column.name)})" for column in table.columns)
            # group_concat keeps the order of the ordered subquery it reads (SQLite 3.40 has no ORDER BY inside
            # an aggregate); another order would only make two equal tables look different, never the reverse.
            parts.append(
                f"(SELECT coalesce(group_concat(r, char(10)), '') FROM (SELECT {row} AS r FROM {name} "
                f"ORDER BY {order}))"
            )
        else:
            parts.append(
                f"(SELECT encode(sha256(convert_to(coalesce(string_agg(whole::text, E'\\n' ORDER BY "
                f"{order}), ''), 'UTF8')), 'hex') FROM {name} AS whole)"
            )
    values = connection.execute(text("SELECT " + ", ".join(parts))).one()
    return [value if not sqlite else sha256(value.encode()).hexdigest() for value in values]


def shift_dates(engine: Engine, days: int) -> None:
    """Move every timestamp in every business table by whole days (a generated copy re-anchored to a world's day)."""
    if days == 0:
        return
    with engine.begin() as connection:
        sqlite = connection.dialect.name == "sqlite"
        for table in business_tables().values():
            names = [column.name for column in table.columns if isinstance(column.type, UtcDateTime)]
            if not names:
                continue
            # One UPDATE moves all of a row's times at once: column by column, a CHECK between two of them
            # (a quote expires after it was created) would see one moved and the other not, and refuse the row.
            changes = ", ".join(_moved(name, days, sqlite) for name in names)
            connection.execute(text(f"UPDATE {table.name} SET {changes}"))


def _moved(name: str, days: int, sqlite: bool) -> str:
    """`name = ` its value `days` later (NULL stays NULL)."""
    if sqlite:
        # Stored as 'YYYY-MM-DD HH:MM:SS.ffffff': move the date, keep the time text exactly as it is.
        return f"{name} = date({name}, '{days:+d} days') || substr({name}, 11)"
    return f"{name} = {name} + make_interval(days => {days})"

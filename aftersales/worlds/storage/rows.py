"""Reading whole business tables for snapshots, and moving a generated database's dates: the SQL of both."""

from typing import Any

from sqlalchemy import DateTime, Engine, Table, select, text

from aftersales.storage.models import Base


def business_tables() -> dict[str, Table]:
    """Every table of the service's data, by name, in foreign-key order."""
    return {table.name: table for table in Base.metadata.sorted_tables}


def read_tables(engine: Engine, names: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Every row of the named tables as plain dicts, read in one transaction so they agree with each other."""
    tables = business_tables()
    read: dict[str, list[dict[str, Any]]] = {}
    with engine.connect() as connection, connection.begin():
        for name in (name for name in names if name in tables):
            result = connection.execute(select(tables[name]))
            columns = list(result.keys())
            # Zipped with the column names: twice as fast as a Row's mapping, and the same dicts (every diff reads
            # a whole world this way).
            read[name] = [dict(zip(columns, row, strict=True)) for row in result.all()]
    return read


def shift_dates(engine: Engine, days: int) -> None:
    """Move every timestamp in every business table by whole days (a generated copy re-anchored to a world's day)."""
    if days == 0:
        return
    with engine.begin() as connection:
        sqlite = connection.dialect.name == "sqlite"
        for table in business_tables().values():
            names = [column.name for column in table.columns if isinstance(column.type, DateTime)]
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

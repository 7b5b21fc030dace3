"""A task's extra rows: inserted into the task's start world, dates relative to the world's day when written so."""

import re
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine

from aftersales.clock import as_utc
from aftersales.storage.base import UtcDateTime
from aftersales.worlds.storage.rows import business_tables

RELATIVE = re.compile(r"^day([+-]\d+)T(\d{2}):(\d{2}):(\d{2})Z$")


def insert_rows(engine: Engine, rows: dict[str, list[dict[str, Any]]], anchor: datetime) -> None:
    """Insert rows by table, in foreign-key order; "day-3T10:00:00Z" is 3 days before the world's day at 10:00."""
    with engine.begin() as connection:
        for name, table in business_tables().items():
            if rows.get(name):
                dates = {column.name for column in table.columns if isinstance(column.type, UtcDateTime)}
                values = [{k: _date(v, anchor) if k in dates else v for k, v in row.items()} for row in rows[name]]
                connection.execute(table.insert(), values)


def _date(value: Any, anchor: datetime) -> Any:
    if isinstance(value, datetime):
        return as_utc(value)
    if not isinstance(value, str):
        return value
    relative = RELATIVE.match(value)
    if relative is None:
        return as_utc(datetime.fromisoformat(value))
    days, hours, minutes, seconds = (int(part) for part in relative.groups())
    return anchor + timedelta(days=days, hours=hours, minutes=minutes, seconds=seconds)

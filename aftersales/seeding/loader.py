"""Load a dataset into the database: idempotent, and shifted so the anchor is today."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, insert, select

from aftersales.seeding.generator import World
from aftersales.seeding.orders import advance_event_sequence
from aftersales.storage.models import Base

# Insert order respects foreign keys.
TABLES = (
    "categories",
    "products",
    "customers",
    "orders",
    "order_lines",
    "tickets",
    "ticket_events",
    "ticket_sequences",
)


@dataclass(frozen=True)
class LoadReport:
    """Rows inserted per table and the number of days the dataset was shifted."""

    inserted: dict[str, int]
    shift_days: int


def shift_for(world: World, now: datetime) -> timedelta:
    """Whole days between the dataset's anchor and today, so "delivered 3 days ago" stays true."""
    return timedelta(days=(now.date() - world.anchor.date()).days)


def load(engine: Engine, world: World, now: datetime) -> LoadReport:
    """Insert every row not yet present (by primary key); existing rows are left untouched."""
    shift = shift_for(world, now)
    inserted: dict[str, int] = {}
    with engine.begin() as connection:
        for name in TABLES:
            table = Base.metadata.tables[name]
            keys = [column.name for column in table.primary_key.columns]
            present = {tuple(row) for row in connection.execute(select(*table.primary_key.columns))}
            rows = [_shifted(row, shift) for row in world.tables.get(name, [])]
            missing = [row for row in rows if tuple(row[key] for key in keys) not in present]
            if missing:
                connection.execute(insert(table), missing)
            inserted[name] = len(missing)
        advance_event_sequence(connection)
    return LoadReport(inserted=inserted, shift_days=shift.days)


def clear(engine: Engine) -> None:
    """Delete every row of every table, children first."""
    with engine.begin() as connection:
        for table in reversed(Base.metadata.sorted_tables):
            connection.execute(table.delete())


def _shifted(row: dict[str, Any], shift: timedelta) -> dict[str, Any]:
    """Move every timestamp of a row by `shift`."""
    return {k: v + shift if isinstance(v, datetime) else v for k, v in row.items()}

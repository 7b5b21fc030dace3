"""The declarative base with its naming convention, and the column helpers every model uses."""

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, DateTime, Dialect, MetaData, Table, TypeDecorator
from sqlalchemy.orm import DeclarativeBase

from aftersales.clock import as_utc

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_N_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UtcDateTime(TypeDecorator[datetime]):
    """A time with its zone, read back as aware UTC on every database (SQLite hands times back without a zone).

    Times are written in UTC (aftersales.clock); SQLite stores their wall time, so reading it as UTC is exact.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        return None if value is None else as_utc(value)


def listed(values: Iterable[str]) -> str:
    """Values as a SQL list, in their given order: `'a', 'b'`."""
    return ", ".join(f"'{value}'" for value in values)


def one_of(column: str, values: Iterable[str], name: str | None = None, nullable: bool = False) -> CheckConstraint:
    """A CHECK constraint that keeps `column` inside `values` (an enum's, say)."""
    condition = f"{column} IN ({listed(values)})"
    if nullable:
        condition = f"{column} IS NULL OR {condition}"
    return CheckConstraint(condition, name=name or column)


class Base(DeclarativeBase):
    """Declarative base with the constraint naming convention."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def table_of(model: type[Base]) -> Table:
    """The Table a model is declared on, typed as one (SQLAlchemy types `__table__` as any FROM clause)."""
    return Base.metadata.tables[model.__tablename__]

"""The declarative base with its naming convention, and the column helpers every model uses."""

from collections.abc import Iterable

from sqlalchemy import CheckConstraint, DateTime, MetaData
from sqlalchemy.orm import DeclarativeBase

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_N_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

UtcDateTime = DateTime(timezone=True)


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

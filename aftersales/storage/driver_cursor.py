"""Hot reads run on the driver's cursor, skipping SQLAlchemy's per-statement compilation and result processing.

A unit of work made for one statement (`SqlUnitOfWork(..., one_statement=True)`) runs that statement on a
pooled connection outside any transaction: one statement sees one consistent snapshot on both databases, so the
BEGIN and ROLLBACK around it (and the session's own bookkeeping) are work without a purpose on the hottest path.
"""

import functools
import itertools
import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Dialect, Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from aftersales.clock import as_utc
from aftersales.storage.database import LOOP_READ
from aftersales.storage.database_errors import database_errors
from aftersales.storage.runner import kept_connection

ONE_STATEMENT = "aftersales_one_statement"  # Session.info key: the unit may run one driver statement, no more


def driver_rows(session: Session, sql: str, params: tuple[Any, ...]) -> Sequence[Sequence[Any]]:
    """Run a read through the driver's cursor: in the unit of work's transaction, or alone in a one-statement unit.

    {p} in `sql` is the driver's parameter marker.
    """
    if session.info.get(ONE_STATEMENT) and not session.in_transaction():
        return _alone(session, sql, params)
    connection = session.connection()
    driver = connection.connection.dbapi_connection
    # Typed as optional because a pooled connection may be detached; a session's own is always checked out.
    assert driver is not None
    return _fetch(driver, marked(sql, connection.dialect), params)


def marked(sql: str, dialect: Dialect) -> str:
    """`sql` with each {p} the driver's parameter marker: ? (SQLite), %s (psycopg), or $1, $2, ... (asyncpg)."""
    return _marked(sql, dialect.paramstyle)


@functools.lru_cache(maxsize=256)  # the statements are a handful of constants: mark each once per driver
def _marked(sql: str, paramstyle: str) -> str:
    if paramstyle == "numeric_dollar":
        numbers = itertools.count(1)
        return re.sub(r"\{p\}", lambda _: f"${next(numbers)}", sql)
    return sql.format(p="?" if paramstyle == "qmark" else "%s")


def driver_writes(session: Session, sql: str, params: tuple[Any, ...]) -> Sequence[Sequence[Any]]:
    """driver_rows for a statement that writes, in the unit of work's transaction: the driver's exceptions leave as
    SQLAlchemy's, which storage.database_errors translates (a write a constraint refused is Conflict)."""
    dbapi_error = session.get_bind().dialect.loaded_dbapi.Error
    try:
        return driver_rows(session, sql, params)
    except dbapi_error as error:
        raise DBAPIError.instance(sql, params, error, dbapi_error) from error


def _alone(session: Session, sql: str, params: tuple[Any, ...]) -> Sequence[Sequence[Any]]:
    """The unit's one statement, on a pooled connection with no transaction around it (see the module docstring)."""
    if session.info[ONE_STATEMENT] == "used":
        raise RuntimeError(
            "a one-statement unit of work was asked for a second statement; it would see another snapshot"
        )
    session.info[ONE_STATEMENT] = "used"
    engine = session.get_bind()
    assert isinstance(engine, Engine)  # sessions here are bound to engines
    dbapi_error = engine.dialect.loaded_dbapi.Error
    with database_errors():
        try:
            if engine.dialect.driver == "asyncpg":
                return _kept(engine, marked(sql, engine.dialect), params)
            pooled = engine.raw_connection()
            try:
                return _fetch(pooled, marked(sql, engine.dialect), params)
            finally:
                pooled.close()  # back to the pool, which rolls back whatever the driver began
        except dbapi_error as error:
            if (read := LOOP_READ.get()) is not None:
                read.interrupted = True  # a bounded read on the loop that failed (a busy file) runs again on a thread
            # A pooled connection raises the driver's own exceptions; in SQLAlchemy's, storage.database_errors
            # translates them (an unreachable database becomes ServiceUnavailable, as on every other path).
            raise DBAPIError.instance(sql, params, error, dbapi_error) from error


def _kept(engine: Engine, sql: str, params: tuple[Any, ...]) -> Sequence[Sequence[Any]]:
    """On asyncpg, a lone read on a kept autocommit connection: one round trip, where a pooled connection took three
    (the checkout's ping, and asyncpg's adapter wraps a statement in BEGIN and ROLLBACK unless in autocommit).

    A kept connection may have died since its last statement (a restarted server, a world's connections ended): the
    read, which changes nothing, runs once more on a new one, as the pool's ping would have replaced it.
    """
    for attempt in (1, 2):
        with kept_connection(engine, fresh=attempt == 2) as connection:
            try:
                return _fetch(connection, sql, params)
            except engine.dialect.loaded_dbapi.Error as error:
                if attempt == 2 or not engine.dialect.is_disconnect(error, connection.dbapi_connection, None):
                    raise
                connection.invalidate()
    raise AssertionError("unreachable: the second attempt returns or raises")


def _fetch(driver: Any, sql: str, params: tuple[Any, ...]) -> Sequence[Sequence[Any]]:
    cursor = driver.cursor()
    try:
        cursor.execute(sql, params)
        rows: Sequence[Sequence[Any]] = cursor.fetchall()
        return rows
    finally:
        cursor.close()


def moment(value: Any) -> datetime:
    """A time from the driver as aware UTC, as UtcDateTime reads it (storage.base).

    SQLite hands back timestamps as text without a zone; PostgreSQL as datetimes in the session's zone (or, inside
    JSON, as ISO 8601 text with an offset).
    """
    if isinstance(value, str):
        parsed = datetime.fromisoformat(value)
        # SQLite's text has no zone: one replace, not as_utc's checks, on the dozen times each ticket read carries.
        return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)
    return as_utc(value)


def json_rows(value: Any) -> list[list[Any]]:
    """Rows aggregated into a JSON array by the statement (text on SQLite; parsed or text on PostgreSQL)."""
    if value is None:
        return []
    return json.loads(value) if isinstance(value, str | bytes) else list(value)

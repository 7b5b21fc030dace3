"""Engines and session factories; created on demand, never at import."""

import threading
import weakref
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import NoSuchModuleError
from sqlalchemy.orm import Session, sessionmaker


def make_engine(url: str, statement_timeout_ms: int | None = None, wal: bool = True, **options: Any) -> Engine:
    """Create an engine, with the pragmas SQLite needs to honour constraints and concurrency.

    `wal=False` leaves SQLite's journal mode alone (a bulk load switches it off and back itself).
    """
    if url.startswith("sqlite"):
        database = url.split("///", 1)[-1]
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = _create(url, connect_args={"check_same_thread": False, "timeout": 30}, **options)
        event.listen(engine, "connect", _sqlite_pragmas if wal else _sqlite_pragmas_without_wal)
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    connect_args = {"options": f"-c statement_timeout={statement_timeout_ms}"} if statement_timeout_ms else {}
    return _create(url, pool_pre_ping=True, connect_args=connect_args, **options)


def _create(url: str, **options: Any) -> Engine:
    """SQLAlchemy's create_engine, with a driver that is not installed told as an unusable URL, not an ImportError."""
    try:
        return create_engine(url, **options)
    except ImportError as error:  # the dialect is known (mysql://, oracle://), its Python driver is missing
        raise NoSuchModuleError(
            f"the {make_url(url).drivername} driver needs the Python module {error.name or error}, which is not "
            "installed"
        ) from None


WRITE = "aftersales_write"
WRITE_LOCK_TIMEOUT = 30.0  # seconds, as SQLite's own busy timeout below
_write_locks: "weakref.WeakKeyDictionary[Engine, threading.RLock]" = weakref.WeakKeyDictionary()
_write_locks_guard = threading.Lock()


def write_lock(engine: Engine) -> "threading.RLock | None":
    """The lock this process's SQLite writers queue on before BEGIN IMMEDIATE; None on PostgreSQL.

    SQLite admits one writer; a second one waits in its busy handler, which sleeps 1, 2, 5, 10 ms and longer
    between tries, so under load the write lock sat free while the next writer slept. Queued on a lock in the
    process, the next writer starts the moment the last one is done (other processes still meet the busy handler).
    """
    if engine.dialect.name != "sqlite":
        return None
    with _write_locks_guard:
        lock = _write_locks.get(engine)
        if lock is None:
            lock = _write_locks[engine] = threading.RLock()
        return lock


def _sqlite_pragmas(dbapi_connection: Any, record: Any) -> None:
    """Enforce foreign keys, let readers run beside the writer (WAL), and let SQLAlchemy emit BEGIN itself."""
    _sqlite_pragmas_without_wal(dbapi_connection, record)
    dbapi_connection.execute("PRAGMA journal_mode=WAL")
    # In WAL mode NORMAL never corrupts the database; it only skips the fsync on every commit.
    dbapi_connection.execute("PRAGMA synchronous=NORMAL")


def _sqlite_pragmas_without_wal(dbapi_connection: Any, _record: Any) -> None:
    """Foreign keys, a busy timeout, and BEGIN left to SQLAlchemy."""
    dbapi_connection.isolation_level = None
    dbapi_connection.execute("PRAGMA foreign_keys=ON")
    dbapi_connection.execute("PRAGMA busy_timeout=30000")


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    """A session factory whose objects stay readable after commit."""
    return sessionmaker(engine, expire_on_commit=False)


def _sqlite_begin(connection: Connection) -> None:
    """Writers take the write lock up front, so a read-then-write never fails on a stale snapshot."""
    immediate = connection.get_execution_options().get(WRITE, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

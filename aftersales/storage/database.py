"""Engines and session factories; created on demand, never at import.

On PostgreSQL an engine made here (psycopg, blocking) has a twin on the asyncio driver (asyncpg) with the same
options, made per event loop by storage.runner for the work it runs on the loop: `loop_twin_recipe` says how. A SQLite
file engine has a reader, connections opened read-only, for the bounded reads storage.runner runs on the loop.
"""

import threading
import weakref
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DisconnectionError, NoSuchModuleError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.orm import Session, sessionmaker

LOOP_DRIVER = "postgresql+asyncpg"
# Whether the running code is database work on the event loop (storage.runner), where a blocking driver must not run.
ON_LOOP: ContextVar[bool] = ContextVar("aftersales_database_on_loop", default=False)


@dataclass
class LoopRead:
    """A SQLite read running on the event loop: each statement's bound in VM steps, and whether it was interrupted."""

    steps: int
    interrupted: bool = False  # ran past its bound, tried to write, or failed: it reruns on a worker thread

    def interrupt(self) -> int:
        """SQLite's progress handler: called once a statement has run `steps` steps, it stops the statement."""
        self.interrupted = True
        return 1


# The SQLite read running on the event loop in this context (storage.runner), or None.
LOOP_READ: ContextVar[LoopRead | None] = ContextVar("aftersales_sqlite_loop_read", default=None)


class Reader(NamedTuple):
    """A SQLite file engine's reader: its engine (a pool of read-only connections) and the sessions bound to it."""

    engine: Engine
    sessions: sessionmaker[Session]


# Each SQLite file engine's reader (made on first use): connections opened read-only for reads on the event loop.
_reader_recipes: "weakref.WeakKeyDictionary[Engine, Callable[[], Engine]]" = weakref.WeakKeyDictionary()
_readers: "weakref.WeakKeyDictionary[Engine, Reader]" = weakref.WeakKeyDictionary()
_readers_guard = threading.Lock()
# How to make each PostgreSQL engine's twin on the asyncio driver: its URL and options, kept beside the engine.
_twin_recipes: "weakref.WeakKeyDictionary[Engine, Callable[[], AsyncEngine]]" = weakref.WeakKeyDictionary()


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
        event.listen(engine, "checkout", _refuse_loop_read)
        if database and ":memory:" not in database and "mode=memory" not in url:  # one file, not a memory db
            _reader_recipes[engine] = lambda: _reader_engine(url)
            event.listen(engine, "engine_disposed", _dispose_reader)
        return engine
    connect_args = {"options": f"-c statement_timeout={statement_timeout_ms}"} if statement_timeout_ms else {}
    engine = _create(url, pool_pre_ping=True, connect_args=connect_args, **options)
    if engine.dialect.name == "postgresql":
        _twin_recipes[engine] = lambda: _loop_engine(url, statement_timeout_ms, options)
        event.listen(engine, "checkout", _refuse_on_loop)
    return engine


class BlockingOnLoop(RuntimeError):
    """Work on the event loop reached for a blocking engine instead of its twin on the asyncio driver."""


def _refuse_on_loop(_dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """A psycopg connection taken on the event loop would block every call: refuse it, loudly (a bug, not load)."""
    if ON_LOOP.get():
        raise BlockingOnLoop("blocking database driver used on the event loop; use storage.runner.here(engine)")


def loop_twin_recipe(engine: Engine) -> "Callable[[], AsyncEngine] | None":
    """How to make `engine`'s twin on the asyncio driver (PostgreSQL engines made here), or None."""
    return _twin_recipes.get(engine)


def _loop_engine(url: str, statement_timeout_ms: int | None, options: dict[str, Any]) -> AsyncEngine:
    """An engine on asyncpg with the options of the psycopg one: the same pool, the same statement timeout."""
    loop_url = make_url(url).set(drivername=LOOP_DRIVER)
    # The server's own setting, as psycopg's "-c statement_timeout": a statement past it is cancelled by PostgreSQL
    # (SQLSTATE 57014), whichever driver sent it.
    settings = {"statement_timeout": str(statement_timeout_ms)} if statement_timeout_ms else {}
    engine = create_async_engine(loop_url, connect_args={"server_settings": settings}, **options)
    event.listen(engine.sync_engine, "connect", _fresh)
    event.listen(engine.sync_engine, "checkout", _ping)
    return engine


_FRESH = "aftersales_fresh"  # connection record info: opened for this checkout, nothing to ping


def _fresh(_dbapi_connection: Any, record: Any) -> None:
    record.info[_FRESH] = True


def _ping(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
    """pool_pre_ping, in one round trip: asyncpg's adapter pings inside a transaction of its own (BEGIN, the ping,
    ROLLBACK) unless in autocommit. A connection the ping finds dead is replaced (DisconnectionError makes the pool
    open another), so a restarted server or a world's closed connections cost no call an error."""
    if record.info.pop(_FRESH, False):
        return
    dbapi_connection.autocommit = True
    try:
        dbapi_connection.ping()
    except Exception as error:
        raise DisconnectionError("the connection did not answer its ping") from error
    finally:
        dbapi_connection.autocommit = False


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
    if immediate:
        refuse_loop_write()
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def refuse_loop_write() -> None:
    """In a read on the event loop, a write would wait for SQLite's write lock and stall the loop: stop the read,
    which then runs again on a worker thread."""
    if (read := LOOP_READ.get()) is not None:
        read.interrupted = True
        raise BlockingOnLoop("a write began in a read on the event loop")


def loop_reader(engine: Engine) -> Reader | None:
    """The reader of a SQLite file `engine`, with its session factory (None for other engines): a second pool on
    the same file whose connections are read-only from the moment they open, for reads on the event loop.

    Read-only for good, not per read: `PRAGMA query_only` expires every statement the connection has prepared, so
    switching it on and off around each read made SQLite prepare each statement again (about 50 microseconds a
    query, more than the query itself).
    """
    with _readers_guard:
        made = _readers.get(engine)
        if made is None and (recipe := _reader_recipes.get(engine)) is not None:
            reader = recipe()
            made = _readers[engine] = Reader(reader, make_session_factory(reader))
    return made


def _reader_engine(url: str) -> Engine:
    reader = _create(url, connect_args={"check_same_thread": False, "timeout": 0})
    event.listen(reader, "connect", _read_only)
    event.listen(reader, "begin", _sqlite_begin)
    event.listen(reader, "checkout", _bound)
    event.listen(reader, "handle_error", _loop_read_failed)
    return reader


def _read_only(dbapi_connection: Any, _record: Any) -> None:
    """A reader's connection: writes fail at once, and a lock it meets fails at once (no sleep on the loop)."""
    dbapi_connection.isolation_level = None
    dbapi_connection.execute("PRAGMA query_only=1")
    dbapi_connection.execute("PRAGMA busy_timeout=0")


def _bound(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """A reader's connection taken: its statements stop after the read's steps (setting the handler prepares
    nothing again)."""
    read = LOOP_READ.get()
    if read is None:
        dbapi_connection.set_progress_handler(None, 0)
    else:
        dbapi_connection.set_progress_handler(read.interrupt, read.steps)


def _refuse_loop_read(_dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """The writable pool reached from a read on the event loop (not through storage.runner.here): stop the read,
    which then runs again, unbounded, on a worker thread."""
    if (read := LOOP_READ.get()) is not None:
        read.interrupted = True
        raise BlockingOnLoop("a read on the event loop reached the writable pool; use storage.runner.here(engine)")


def _dispose_reader(engine: Engine) -> None:
    """Disposing an engine disposes its reader too (a world reset replaces the file the reader has open)."""
    with _readers_guard:
        made = _readers.pop(engine, None)
    if made is not None:
        made.engine.dispose()


def _loop_read_failed(_context: Any) -> None:
    """Any driver error in a read on the event loop sends the read to a worker thread, where it fails for real."""
    if (read := LOOP_READ.get()) is not None:
        read.interrupted = True

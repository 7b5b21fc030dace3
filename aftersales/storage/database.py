"""Engines and session factories; created on demand, never at import."""

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker


def make_engine(url: str, **options: Any) -> Engine:
    """Create an engine, with the pragmas SQLite needs to honour constraints and concurrency."""
    if url.startswith("sqlite"):
        database = url.split("///", 1)[-1]
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, **options)
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True, **options)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """Enforce foreign keys and let readers run beside the writer (WAL)."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    """A session factory whose objects stay readable after commit."""
    return sessionmaker(engine, expire_on_commit=False)

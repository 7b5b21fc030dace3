"""Run Alembic from code: upgrade to head, report the current revision.

A database already at head is told by one small query, without Alembic: every `aftersales` command, server start
and new world checks its database, and loading Alembic and reading the migration scripts cost each about half a
second of CPU. Alembic is imported only when there is something to migrate.
"""

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect

from aftersales.paths import shipped
from aftersales.storage.database_errors import database_errors

if TYPE_CHECKING:
    from alembic.config import Config

# The newest revision in migrations/versions. A new migration changes it too: a test holds the two together.
HEAD = "0014"

# Alembic keeps the running migration's context in module globals (alembic.context, alembic.op): two upgrades at
# once in one process would run each other's steps on the wrong connection. One at a time, then.
_UPGRADING = threading.Lock()


def alembic_config() -> "Config":
    """An Alembic config pointing at the shipped migrations (alembic.ini is only for the `alembic` command)."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(shipped("migrations")))
    config.set_main_option("path_separator", "os")
    config.attributes["configure_logging"] = False
    return config


def upgrade(engine: Engine) -> None:
    """Migrate the database behind `engine` to head (at once when it is there already)."""
    if current_revision(engine) == HEAD:
        return
    from alembic import command

    config = alembic_config()
    with _UPGRADING, engine.connect() as connection, rebuilds_allowed(connection), connection.begin():
        config.attributes["connection"] = connection
        command.upgrade(config, "head")  # migrations/env.py checks every reference before the commit


@contextmanager
def rebuilds_allowed(connection: Connection) -> Iterator[None]:
    """On SQLite, foreign keys off while migrating, then on again.

    SQLite changes a table's CHECK constraints by building the table anew and dropping the old one (Alembic's batch
    mode), and with foreign keys on, dropping a table other rows refer to fails (an order with lines, a ticket with
    events): a database with data could not be upgraded. The switch only takes outside a transaction, so it goes to
    the driver before SQLAlchemy begins one; `check_references` then checks every reference before the commit.
    """
    sqlite = connection.dialect.name == "sqlite"
    driver = connection.connection.driver_connection if sqlite else None
    if driver is not None:
        driver.execute("PRAGMA foreign_keys=OFF")
    try:
        yield
    finally:
        if driver is not None:
            driver.execute("PRAGMA foreign_keys=ON")


def check_references(connection: Connection) -> None:
    """Refuse to commit a migration that left a row referring to one that is not there (SQLite; PostgreSQL checks)."""
    if connection.dialect.name != "sqlite":
        return
    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
    if broken:
        tables = sorted({row[0] for row in broken})
        raise RuntimeError(f"the migration left rows of {', '.join(tables)} referring to rows that are not there")


@cache
def head_revision() -> str:
    """The newest revision of the shipped migration scripts (every script parsed: HEAD is the cheap answer)."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head() or ""


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at, or None when it was never migrated (read as Alembic keeps it)."""
    with engine.connect() as connection:
        if not inspect(connection).has_table("alembic_version"):
            return None
        versions = connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalars().all()
    return versions[0] if len(versions) == 1 else None


def probed_revision(engine: Engine) -> str | None:
    """current_revision for the readiness probe: a database that does not answer is ServiceUnavailable."""
    with database_errors():
        return current_revision(engine)

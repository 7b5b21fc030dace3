"""Run Alembic from code: upgrade to head, report the current revision."""

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine

from aftersales.paths import shipped

# Alembic keeps the running migration's context in module globals (alembic.context, alembic.op): two upgrades at
# once in one process would run each other's steps on the wrong connection. One at a time, then.
_UPGRADING = threading.Lock()


def alembic_config() -> Config:
    """An Alembic config pointing at the shipped migrations (alembic.ini is only for the `alembic` command)."""
    config = Config()
    config.set_main_option("script_location", str(shipped("migrations")))
    config.set_main_option("path_separator", "os")
    config.attributes["configure_logging"] = False
    return config


def upgrade(engine: Engine) -> None:
    """Migrate the database behind `engine` to head."""
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


# The shipped migrations do not change while the process runs; reading them (every script parsed) cost each new
# world about 10 ms of CPU, since a template's name includes the head.
@cache
def head_revision() -> str:
    """The newest revision the code knows."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head() or ""


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at, or None when it was never migrated."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()

"""Run Alembic from code: upgrade to head, report the current revision."""

import threading
from functools import cache

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

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
    with _UPGRADING, engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


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

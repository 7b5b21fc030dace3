"""Alembic environment: the URL comes from aftersales settings, or from a caller-supplied connection."""

from logging.config import fileConfig

from alembic import context

from aftersales.settings import Settings
from aftersales.storage import migrate
from aftersales.storage.database import make_engine
from aftersales.storage.models import Base
from aftersales.storage.rate_buckets import METADATA as RATE_BUCKETS_METADATA
from aftersales.worlds.storage.tables import METADATA as WORLDS_METADATA

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logging", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

# The business tables, the tables of worlds (the registry and the trace: see worlds/storage/tables.py) and the shared
# rate buckets (storage/rate_buckets.py), each kept apart from the others.
target_metadata = [Base.metadata, WORLDS_METADATA, RATE_BUCKETS_METADATA]


def run_offline() -> None:
    """Emit SQL for the configured URL without connecting."""
    context.configure(
        url=Settings().resolved_database_url,
        target_metadata=target_metadata,
        literal_binds=True,
        compare_type=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    """Migrate through a connection handed in by the CLI or tests, else one made from settings."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _migrate(connection)
        return
    engine = make_engine(Settings().resolved_database_url)
    with engine.connect() as connection, migrate.rebuilds_allowed(connection):
        _migrate(connection)
    engine.dispose()


def _migrate(connection) -> None:  # type: ignore[no-untyped-def]
    """Run the migrations on one connection, in one transaction."""
    context.configure(connection=connection, target_metadata=target_metadata, compare_type=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
        migrate.check_references(connection)


if context.is_offline_mode():
    run_offline()
else:
    run_online()

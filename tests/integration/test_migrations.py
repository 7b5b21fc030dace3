"""Migrations build the schema on an empty database and match the models exactly."""

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from aftersales.storage import migrate
from aftersales.storage.models import Base
from aftersales.worlds.storage.registry import METADATA as WORLDS_METADATA


def test_upgrading_an_empty_database_reaches_head_with_every_table(empty_engine):
    migrate.upgrade(empty_engine)
    assert migrate.current_revision(empty_engine) == migrate.head_revision()
    assert {*Base.metadata.tables, *WORLDS_METADATA.tables} <= set(inspect(empty_engine).get_table_names())


def test_the_models_and_the_migrations_do_not_drift(empty_engine):
    migrate.upgrade(empty_engine)
    with empty_engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, [Base.metadata, WORLDS_METADATA]) == []


def test_upgrading_twice_is_harmless(empty_engine):
    migrate.upgrade(empty_engine)
    migrate.upgrade(empty_engine)
    assert migrate.current_revision(empty_engine) == migrate.head_revision()


def test_the_alembic_command_upgrades_an_empty_sqlite_file_to_head(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    from tests.support import ROOT

    database = tmp_path / "fresh.db"
    env = {**os.environ, "AFTERSALES_DATABASE_URL": f"sqlite:///{database}"}
    alembic = Path(sys.executable).with_name("alembic")
    done = subprocess.run([str(alembic), "upgrade", "head"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Running upgrade 0002 -> 0003" in done.stderr and database.exists()

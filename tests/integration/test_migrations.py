"""Migrations build the schema on an empty database and match the models exactly."""

import dataclasses

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from aftersales import clock
from aftersales.seeding import loader
from aftersales.storage import migrate
from aftersales.storage.models import Base
from aftersales.worlds.storage.tables import METADATA as WORLDS_METADATA
from tests.support.database import row_counts


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


def _index_definitions(engine) -> dict[str, str]:
    """Each index's definition as the database keeps it."""
    query = (
        "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'"
        if engine.dialect.name == "postgresql"
        else "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
    )
    with engine.connect() as connection:
        return dict(connection.exec_driver_sql(query).all())


def test_every_index_the_models_declare_is_the_one_the_migrations_built(empty_engine):
    # compare_metadata does not look at an index's WHERE clause; rebuilding each index from the models does.
    migrate.upgrade(empty_engine)
    migrated = _index_definitions(empty_engine)
    indexes = [index for table in Base.metadata.sorted_tables for index in table.indexes]
    with empty_engine.begin() as connection:
        for index in indexes:
            index.drop(connection)
            index.create(connection)
    assert "uq_tickets_open_order_line" in migrated
    assert {index.name: migrated[index.name] for index in indexes} == {
        index.name: _index_definitions(empty_engine)[index.name] for index in indexes
    }


def test_dropping_the_idempotency_fingerprint_migrates_both_ways_with_records_kept(empty_engine):
    from alembic import command

    config = migrate.alembic_config()
    with empty_engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0004")
        connection.exec_driver_sql(
            "INSERT INTO idempotency_records (caller, tool, key, fingerprint, arguments, created_at, expires_at) "
            "VALUES ('bot', 'after_sales_create_ticket', 'key-0001', 'f', '{}', "
            "'2026-11-30 00:00:00', '2026-12-01 00:00:00')"
        )
        command.upgrade(config, "0005")
        assert "fingerprint" not in {c["name"] for c in inspect(connection).get_columns("idempotency_records")}
        command.downgrade(config, "0004")
        assert connection.exec_driver_sql("SELECT key, fingerprint FROM idempotency_records").all() == [
            ("key-0001", "")
        ]
        command.upgrade(config, "head")
    assert migrate.current_revision(empty_engine) == migrate.head_revision()


def test_a_seeded_database_of_the_revision_before_cash_on_delivery_upgrades_to_head_keeping_every_row(
    empty_engine, baseline
):
    # 0012 rebuilds orders and tickets on SQLite (their CHECK constraints change), and other rows refer to both:
    # with foreign keys on, the rebuild's DROP TABLE failed on any database with data.
    from alembic import command

    cash = {row["id"] for row in baseline.tables["orders"] if row["payment_method"] == "cash_on_delivery"}
    before = dataclasses.replace(
        baseline,
        tables={
            name: [row for row in rows if row.get("order_id", row.get("id")) not in cash]
            for name, rows in baseline.tables.items()
        },
    )
    config = migrate.alembic_config()
    with empty_engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0011")
    loader.load(empty_engine, before, clock.now())
    counts = row_counts(empty_engine)
    migrate.upgrade(empty_engine)
    assert migrate.current_revision(empty_engine) == migrate.head_revision()
    assert {name: n for name, n in row_counts(empty_engine).items() if name in counts} == counts
    assert counts["orders"] > 1000 and counts["ticket_events"] > 1000


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # the same query on both; one process start is enough
def test_a_database_at_head_is_told_so_without_loading_alembic(empty_engine):
    """Every command, server start and new world checks its database: at head, Alembic is not even imported.

    A database behind head still migrates through Alembic (test_a_seeded_database_of_the_revision_before...).
    """
    import subprocess
    import sys

    migrate.upgrade(empty_engine)
    url = empty_engine.url.render_as_string(hide_password=False)
    script = (
        "import sys\nfrom aftersales.storage import migrate\nfrom aftersales.storage.database import make_engine\n"
        f"engine = make_engine({url!r})\nmigrate.upgrade(engine)\nprint(migrate.current_revision(engine))\n"
        "print('alembic' in sys.modules)\n"
    )
    at_head = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert at_head.stdout.split() == [migrate.HEAD, "False"]

"""SQLite worlds count their writes per table, so a diff prints only the tables an episode wrote, and misses none."""

import shutil
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.pool import NullPool

from aftersales.storage import migrate
from aftersales.storage.database import make_engine
from aftersales.worlds.storage import changes, rows
from aftersales.worlds.storage.rows import business_tables, read_tables

CATEGORY = "INSERT INTO categories (code, name, return_window_days, restocking_fee_bps) VALUES (:code, :code, 30, 0)"


def database(path: Path, counted: bool = True) -> Engine:
    engine = make_engine(f"sqlite:///{path}", poolclass=NullPool)
    migrate.upgrade(engine)
    with engine.begin() as connection:
        connection.execute(text(CATEGORY), {"code": "toys"})
    if counted:
        changes.track(engine, business_tables())
    return engine


def copy_of(engine: Engine, path: Path) -> Engine:
    engine.dispose()
    shutil.copyfile(str(engine.url.database), path)
    return make_engine(f"sqlite:///{path}", poolclass=NullPool)


def test_a_table_no_one_wrote_is_taken_from_the_origin_unprinted_and_a_written_one_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    origin = database(tmp_path / "origin.db")
    names = list(business_tables())
    before = read_tables(origin, names)
    assert before["categories"].changes == 0
    world = copy_of(origin, tmp_path / "world.db")
    with world.begin() as connection:
        connection.execute(text(CATEGORY), {"code": "books"})
        connection.execute(text("DELETE FROM categories WHERE code = 'books'"))  # back as it was: counted all the same
        connection.execute(text("UPDATE categories SET name = 'Toys' WHERE code = 'toys'"))
    printed: list[str] = []
    prints = rows._prints

    def printing(connection, tables):
        printed.extend(table.name for table in tables)
        return prints(connection, tables)

    monkeypatch.setattr(rows, "_prints", printing)
    after = read_tables(world, names, before)
    assert printed == ["categories"]
    assert after["categories"].changes == 3
    assert [row["name"] for row in after["categories"].rows] == ["Toys"]
    assert all(after[name] is before[name] for name in names if name != "categories")


def test_a_database_missing_one_of_its_triggers_is_printed_whole_so_no_change_is_missed(tmp_path: Path):
    origin = database(tmp_path / "origin.db")
    names = list(business_tables())
    before = read_tables(origin, names)
    world = copy_of(origin, tmp_path / "world.db")
    with world.begin() as connection:  # as a later migration rebuilding the table would leave it
        connection.exec_driver_sql('DROP TRIGGER "_world_changes:categories:update"')
        connection.execute(text("UPDATE categories SET name = 'Toys' WHERE code = 'toys'"))
    after = read_tables(world, names, before)
    assert [row["name"] for row in after["categories"].rows] == ["Toys"]
    assert after["categories"].changes is None


def test_a_database_without_counters_is_read_by_its_prints_as_before(tmp_path: Path):
    origin = database(tmp_path / "origin.db", counted=False)
    names = list(business_tables())
    before = read_tables(origin, names)
    world = copy_of(origin, tmp_path / "world.db")
    with world.begin() as connection:
        connection.execute(text("UPDATE categories SET name = 'Toys' WHERE code = 'toys'"))
    after = read_tables(world, names, before)
    assert [row["name"] for row in after["categories"].rows] == ["Toys"]
    assert after["orders"] is before["orders"]  # unchanged print: the origin's rows

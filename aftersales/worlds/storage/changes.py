"""Per-table write counters in SQLite world databases, so a diff reads only the tables an episode wrote.

A world's diff against its origin used to print every table (each row quoted and hashed, in Python, as SQLite hands
it over) to find the few an episode changed: more than half of a short trial's CPU. Templates get a counter per
business table and triggers that bump it on every insert, update and delete; a world and its origin are copies of
one file, so a table whose counter is the origin's holds the origin's rows. PostgreSQL computes its prints where
the data is and keeps its lock order free of counter rows: it is not counted.

A database whose triggers are not all there (a template built before the counters, a table rebuilt by a later
migration) is not counted either: every table is printed, as before.
"""

from collections.abc import Iterable

from sqlalchemy import Connection, Engine

COUNTERS = "_world_changes"
KINDS = ("insert", "update", "delete")


def track(engine: Engine, tables: Iterable[str]) -> None:
    """Give a SQLite database a counter per table and the triggers that bump it (idempotent)."""
    if engine.dialect.name != "sqlite":
        return
    names = list(tables)
    with engine.begin() as connection:
        connection.exec_driver_sql(
            f"CREATE TABLE IF NOT EXISTS {COUNTERS} (name TEXT PRIMARY KEY, changes INTEGER NOT NULL) WITHOUT ROWID"
        )
        for name in names:
            connection.exec_driver_sql(f"INSERT OR IGNORE INTO {COUNTERS} VALUES ('{name}', 0)")
            for kind in KINDS:
                connection.exec_driver_sql(
                    f'CREATE TRIGGER IF NOT EXISTS "{_trigger(name, kind)}" AFTER {kind.upper()} ON "{name}" '
                    f"BEGIN UPDATE {COUNTERS} SET changes = changes + 1 WHERE name = '{name}'; END"
                )


def counts(connection: Connection, tables: list[str]) -> dict[str, int]:
    """Each table's counter, when every one of `tables` is counted; else nothing (print them all)."""
    if connection.dialect.name != "sqlite" or not tables:
        return {}
    expected = {_trigger(name, kind) for name in tables for kind in KINDS}
    present = connection.exec_driver_sql(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE ?", (f"{COUNTERS}:%",)
    )
    if not expected <= {row[0] for row in present}:
        return {}
    found: dict[str, int] = {
        row[0]: row[1] for row in connection.exec_driver_sql(f"SELECT name, changes FROM {COUNTERS}")
    }
    return {name: found[name] for name in tables} if all(name in found for name in tables) else {}


def _trigger(table: str, kind: str) -> str:
    return f"{COUNTERS}:{table}:{kind}"

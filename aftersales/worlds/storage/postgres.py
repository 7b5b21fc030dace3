"""Worlds as PostgreSQL databases on the control database's server, copied with CREATE DATABASE … TEMPLATE.

The role needs the CREATEDB privilege. PostgreSQL copies a database only while nobody else is connected to it, so
templates and origins are sealed (ALLOW_CONNECTIONS false) and read through a throwaway copy; a live world being
forked has its idle connections closed (pools reconnect on their next checkout) and active ones waited for.
"""

import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, Engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool

from aftersales.storage.database import make_engine
from aftersales.worlds.model import Place
from aftersales.worlds.world_errors import WorldBusy, WorldRequestError

CODES = {"world": "w", "origin": "o", "template": "t", "scratch": "s"}
IN_USE, DUPLICATE = "55006", "42P04"  # SQLSTATEs: object_in_use, duplicate_database
WAIT_FOR_SOURCE = 5.0  # seconds a copy waits for active transactions on its source to finish


class PostgresPlaces:
    """Places as databases named <prefix>_<w|o|t|s>_<name>."""

    backend = "postgresql"

    def __init__(self, control_url: str, prefix: str) -> None:
        self.control_url, self.prefix = control_url, prefix
        # Its own small engine: CREATE DATABASE runs outside a transaction and may take longer than the
        # statement timeout the serving pool has.
        self._admin = make_engine(control_url, isolation_level="AUTOCOMMIT", pool_size=1, max_overflow=2)

    def name(self, place: Place) -> str:
        """The database name of a place (ids hold no underscores, so names never collide)."""
        return f"{self.prefix}_{CODES[place.kind]}_{place.name.replace('-', '_')}"

    def url(self, place: Place) -> str:
        """The control URL with the place's database."""
        return make_url(self.control_url).set(database=self.name(place)).render_as_string(hide_password=False)

    def exists(self, place: Place) -> bool:
        """Whether the database exists."""
        with self._admin.connect() as connection:
            found = connection.scalar(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": self.name(place)})
        return found is not None

    def create_empty(self, place: Place) -> None:
        """CREATE DATABASE from template0's defaults."""
        with self._admin.connect() as connection:
            connection.execute(text(f"CREATE DATABASE {_quoted(connection, self.name(place))}"))

    def copy(self, source: Place, target: Place) -> None:
        """CREATE DATABASE target TEMPLATE source."""
        self._clone(self.name(source), self.name(target))

    def restore(self, source: Place, target: Place) -> None:
        """Copy the source beside the target, then swap it in: the world is unavailable only for the swap."""
        incoming = Place("scratch", f"in-{secrets.token_hex(4)}")
        self.copy(source, incoming)
        try:
            self.drop(target)
            self._rename(incoming, target)
        finally:
            self.drop(incoming)

    def import_from(self, url: str, target: Place) -> None:
        """Copy a generated database on the same server."""
        source, control = make_url(url), make_url(self.control_url)
        if source.get_backend_name() != "postgresql" or (source.host, source.port) != (control.host, control.port):
            raise WorldRequestError(
                f"{source.render_as_string(hide_password=True)} is not a database on this PostgreSQL server.",
                "PostgreSQL copies a database with CREATE DATABASE … TEMPLATE, which works within one server.",
                "Generate the dataset into a database on this server (AFTERSALES_DATABASE_URL=… aftersales seed "
                "generate), or as a dataset file with --out.",
            )
        self._clone(source.database or "", self.name(target))

    def publish(self, building: Place, final: Place) -> None:
        """Seal the build and rename it; if the name is taken, another build won and ours is dropped."""
        self.seal(building)
        try:
            self._rename(building, final)
        except DBAPIError as error:
            if _state(error) != DUPLICATE:
                raise
            self.drop(building)

    def seal(self, place: Place) -> None:
        """Refuse connections, so copies from it never find someone connected."""
        with self._admin.connect() as connection:
            connection.execute(
                text(f"ALTER DATABASE {_quoted(connection, self.name(place))} WITH ALLOW_CONNECTIONS false")
            )

    def drop(self, place: Place) -> None:
        """DROP DATABASE … WITH (FORCE): connections still open on it are ended."""
        with self._admin.connect() as connection:
            connection.execute(text(f"DROP DATABASE IF EXISTS {_quoted(connection, self.name(place))} WITH (FORCE)"))

    def sizes(self, places: list[Place]) -> dict[Place, int]:
        """pg_database_size per place."""
        found: dict[Place, int] = {}
        for group in chunks(places):
            names = {self.name(place): place for place in group}
            with self._admin.connect() as connection:
                rows = connection.execute(
                    text("SELECT datname, pg_database_size(datname) FROM pg_database WHERE datname = ANY(:names)"),
                    {"names": list(names)},
                )
                found |= {names[name]: int(size) for name, size in rows}
        return found

    @contextmanager
    def reading(self, place: Place) -> Iterator[Engine]:
        """A live world is read directly; a sealed template or origin through a throwaway copy."""
        copy = place if place.kind == "world" else Place("scratch", f"read-{secrets.token_hex(4)}")
        if copy != place:
            self.copy(place, copy)
        engine = make_engine(self.url(copy), poolclass=NullPool)
        try:
            yield engine
        finally:
            engine.dispose()
            if copy != place:
                self.drop(copy)

    def templates(self) -> list[Place]:
        """Template databases with this prefix."""
        start = f"{self.prefix}_t_"
        with self._admin.connect() as connection:
            names = connection.scalars(
                text("SELECT datname FROM pg_database WHERE starts_with(datname, :s)"), {"s": start}
            )
            return sorted(Place("template", name.removeprefix(start).replace("_", "-")) for name in names)

    def close(self) -> None:
        """Close the administrative connections."""
        self._admin.dispose()

    def _rename(self, place: Place, to: Place) -> None:
        with self._admin.connect() as connection:
            old, new = _quoted(connection, self.name(place)), _quoted(connection, self.name(to))
            connection.execute(text(f"ALTER DATABASE {old} RENAME TO {new}"))

    def _clone(self, source: str, target: str) -> None:
        """CREATE DATABASE … TEMPLATE, ending the source's idle connections and waiting out active ones first.

        PostgreSQL itself waits five seconds for other sessions before it refuses, so sessions are checked here,
        where the wait is ours to choose and pooled connections elsewhere can be ended.
        """
        deadline = time.monotonic() + WAIT_FOR_SOURCE
        with self._admin.connect() as connection:
            statement = text(f"CREATE DATABASE {_quoted(connection, target)} TEMPLATE {_quoted(connection, source)}")
            while True:
                if _end_idle_sessions(connection, source) == 0:
                    try:
                        connection.execute(statement)
                        return
                    except DBAPIError as error:  # someone connected in between
                        if _state(error) != IN_USE:
                            raise
                if time.monotonic() > deadline:
                    raise WorldBusy(
                        f"The database {source} kept open transactions for {WAIT_FOR_SOURCE:g} seconds.",
                        "PostgreSQL copies a database only while nobody else is connected to it.",
                        "Retry when the calls running in that world have finished.",
                    )
                time.sleep(0.05)


def _end_idle_sessions(connection: Connection, database: str) -> int:
    """End idle sessions on `database` (pooled connections elsewhere reconnect when next used); count the busy."""
    connection.execute(
        text(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = :d AND pid <> pg_backend_pid() AND state = 'idle'"
        ),
        {"d": database},
    )
    # Client sessions only: PostgreSQL ends an autovacuum worker on the source itself when it copies.
    busy = text(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = :d AND pid <> pg_backend_pid() "
        "AND backend_type = 'client backend' AND state <> 'idle'"
    )
    return int(connection.scalar(busy, {"d": database}) or 0)


def _quoted(connection: Connection, name: str) -> str:
    return connection.dialect.identifier_preparer.quote(name)


def _state(error: DBAPIError) -> str | None:
    return getattr(error.orig, "sqlstate", None)


def chunks(items: list[Place], size: int = 100) -> Iterator[list[Place]]:
    """Places in groups, for queries that take a list."""
    for start in range(0, len(items), size):
        yield items[start : start + size]

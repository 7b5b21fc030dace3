"""Worlds as SQLite files under one folder, copied with SQLite's online backup API.

Copying a database file by hand loses the writes still in its WAL; the backup API reads through a connection, so
the copy is exactly what a reader sees, even while the source is in use.
"""

import os
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.pool import NullPool

from aftersales.storage.database import make_engine
from aftersales.worlds.model import Place
from aftersales.worlds.world_errors import WorldRequestError

FOLDERS = {"world": "worlds", "origin": "origins", "template": "templates", "scratch": "scratch"}
HEADER = b"SQLite format 3\x00"


class SqlitePlaces:
    """Places as files: <root>/worlds/<id>.db, origins/<id>.db, templates/<key>.db, scratch/<name>.db."""

    backend = "sqlite"

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, place: Place) -> Path:
        """The file of a place."""
        return self.root / FOLDERS[place.kind] / f"{place.name}.db"

    def url(self, place: Place) -> str:
        """The SQLAlchemy URL of a place."""
        return f"sqlite:///{self.path(place)}"

    def exists(self, place: Place) -> bool:
        """Whether the file is there."""
        return self.path(place).is_file()

    def create_empty(self, place: Place) -> None:
        """SQLite creates the file on first connection; only the folder is needed."""
        self.path(place).parent.mkdir(parents=True, exist_ok=True)

    def copy(self, source: Place, target: Place) -> None:
        """Back `source` up into a new file, then move it into place, so a half-made copy is never seen."""
        self._backup_file(self.path(source), self.path(target))

    def restore(self, source: Place, target: Place) -> None:
        """Back `source` up into the existing target file: connections elsewhere see the reset, not a stale inode."""
        with closing(_connect(self.path(source))) as reader, closing(_connect(self.path(target))) as writer:
            reader.backup(writer)

    def import_from(self, url: str, target: Place) -> None:
        """Copy a generated SQLite database file."""
        if not url.startswith("sqlite:///"):
            raise WorldRequestError(
                f"{url} is not a SQLite database.",
                "Worlds here are SQLite files, so a generated database must be a SQLite file too.",
                "Generate the dataset as a file (aftersales seed generate --out FILE) and create the world from it.",
            )
        self._backup_file(Path(url.removeprefix("sqlite:///")), self.path(target))

    def publish(self, building: Place, final: Place) -> None:
        """Fold the WAL into the file (one self-contained file), then rename it into place."""
        path = self.path(building)
        with closing(sqlite3.connect(path)) as connection:
            connection.execute("PRAGMA journal_mode=DELETE")
        self.path(final).parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, self.path(final))

    def seal(self, place: Place) -> None:
        """Nothing to do: only this module writes origins and templates, and only while building them."""

    def drop(self, place: Place) -> None:
        """Delete the file and its WAL companions."""
        path = self.path(place)
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)

    def sizes(self, places: list[Place]) -> dict[Place, int]:
        """The file plus its WAL, per place."""
        found = {}
        for place in places:
            path = self.path(place)
            if path.is_file():
                wal = Path(f"{path}-wal")
                found[place] = path.stat().st_size + (wal.stat().st_size if wal.is_file() else 0)
        return found

    @contextmanager
    def reading(self, place: Place) -> Iterator[Engine]:
        """An engine without a pool that leaves the file's journal mode as it is."""
        engine = make_engine(self.url(place), wal=False, poolclass=NullPool)
        try:
            yield engine
        finally:
            engine.dispose()

    def templates(self) -> list[Place]:
        """Template files present."""
        folder = self.root / FOLDERS["template"]
        return sorted(Place("template", path.stem) for path in folder.glob("*.db")) if folder.is_dir() else []

    def close(self) -> None:
        """Nothing is kept open."""

    def _backup_file(self, source: Path, target: Path) -> None:
        if not _is_sqlite(source):
            raise WorldRequestError(
                f"{source} is not a SQLite database.",
                "A world is copied from a database file made by aftersales.",
                "Check the path; generate one with `aftersales seed generate` if needed.",
            )
        if target.exists():
            raise FileExistsError(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f"{target.name}.{secrets.token_hex(4)}.part")
        try:
            with closing(_connect(source)) as reader, closing(sqlite3.connect(partial)) as writer:
                # A new file nobody reads yet: no rollback journal and no fsync while it fills.
                writer.execute("PRAGMA journal_mode=OFF")
                writer.execute("PRAGMA synchronous=OFF")
                reader.backup(writer)
                writer.execute("PRAGMA journal_mode=DELETE")  # a copy of a WAL file starts in WAL mode otherwise
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)


def _connect(path: Path) -> sqlite3.Connection:
    """A plain connection that waits for a writer instead of failing at once."""
    if not path.is_file():
        raise FileNotFoundError(path)
    return sqlite3.connect(path, timeout=30)


def _is_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return file.read(len(HEADER)) == HEADER
    except OSError:
        return False

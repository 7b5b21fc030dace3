"""`aftersales db upgrade | current`."""

import argparse
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine

from aftersales.cli.console import shown_url
from aftersales.settings import Settings
from aftersales.storage import migrate
from aftersales.storage.database import make_engine


def add(db: argparse.ArgumentParser) -> None:
    """Register the db commands."""
    actions = db.add_subparsers(dest="action", required=True, metavar="ACTION")
    actions.add_parser("upgrade", help="Migrate the database to the newest revision.").set_defaults(run=upgrade)
    actions.add_parser("current", help="Print the database's revision and the code's head.").set_defaults(run=current)


@contextmanager
def database(settings: Settings) -> Iterator[Engine]:
    """An engine on the configured database, disposed however the command ends."""
    engine = make_engine(settings.resolved_database_url)
    try:
        yield engine
    finally:
        engine.dispose()


def upgrade(_: argparse.Namespace, settings: Settings) -> int:
    """Migrate to head."""
    with database(settings) as engine:
        migrate.upgrade(engine)
        revision = migrate.current_revision(engine)
    print(f"database {shown_url(settings.resolved_database_url)} at revision {revision} (head)")
    return 0


def current(_: argparse.Namespace, settings: Settings) -> int:
    """Print the current revision; exit 1 when it is not head."""
    with database(settings) as engine:
        revision, head = migrate.current_revision(engine), migrate.HEAD
    print(f"current: {revision or 'none (not migrated)'}\nhead:    {head}")
    return 0 if revision == head else 1

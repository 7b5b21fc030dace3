"""What the commands tell a person on stderr (stdout carries tokens, JSON and the stdio protocol)."""

import sys

from aftersales.settings import Settings


def say(text: str) -> None:
    """One message on stderr, flushed at once."""
    print(text, file=sys.stderr, flush=True)


def shown_url(url: str) -> str:
    """A database URL fit to print: the password is masked."""
    # Imported here: `token issue` prints the location and needs nothing else of SQLAlchemy (a third of its start).
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # an unparsable URL may hold a password anywhere: show none of it
        return "(unparsable URL)"


def location(settings: Settings) -> str:
    """Where this process keeps its data: the data dir (generated keys, SQLite) and the database."""
    return f"data dir {settings.data_dir}, database {shown_url(settings.resolved_database_url)}"

"""Driver exceptions in the project's words, translated where storage meets the database (as httpx maps its own).

Nothing above storage sees a SQLAlchemy exception: an unreachable database is `ServiceUnavailable` (a retryable
tool error), and a write a uniqueness constraint refused is `Conflict` (services.ports.rows: the services catch it).
"""

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.exc import DBAPIError, DisconnectionError, IntegrityError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from aftersales.domain.errors import ServiceUnavailable
from aftersales.services.ports.rows import Conflict

log = logging.getLogger(__name__)
# Errors that say the database is not answering, not that a statement is wrong. OSError: asyncpg's adapter lets a
# refused or timed-out connection leave as the socket's own error.
UNAVAILABLE = (OperationalError, InterfaceError, DisconnectionError, PoolTimeout, OSError)
# SQLSTATE classes of the same: connection exception, transaction rollback (serialization failure, deadlock),
# insufficient resources, operator intervention (a statement timeout, a shutdown), system error. psycopg raises them
# as OperationalError; asyncpg's adapter as a plain DBAPI error that carries the SQLSTATE.
UNAVAILABLE_CLASSES = ("08", "40", "53", "57", "58")


def translate(error: BaseException) -> BaseException:
    """The project's exception for a driver exception; any other exception comes back as it is."""
    if isinstance(error, IntegrityError):
        return Conflict(str(error.orig))
    if isinstance(error, UNAVAILABLE) or _unavailable_state(error):
        log.warning("database unavailable: %s", type(error).__name__)
        return ServiceUnavailable()
    return error


def _unavailable_state(error: BaseException) -> bool:
    """Whether a driver error's SQLSTATE says the database is not answering (as OperationalError would)."""
    state = getattr(error.orig, "sqlstate", None) if isinstance(error, DBAPIError) else None
    return isinstance(state, str) and state[:2] in UNAVAILABLE_CLASSES


@contextmanager
def database_errors() -> Iterator[None]:
    """Translate what the driver raises inside the block into `Conflict` or `ServiceUnavailable`."""
    try:
        yield
    except Exception as error:
        translated = translate(error)
        if translated is error:
            raise
        raise translated from error

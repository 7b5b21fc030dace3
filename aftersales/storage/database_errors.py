"""Driver exceptions in the project's words, translated where storage meets the database (as httpx maps its own).

Nothing above storage sees a SQLAlchemy exception: an unreachable database is `ServiceUnavailable` (a retryable
tool error), and a write a uniqueness constraint refused is `Conflict` (services.ports.rows: the services catch it).
"""

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.exc import DisconnectionError, IntegrityError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from aftersales.domain.errors import ServiceUnavailable
from aftersales.services.ports.rows import Conflict

log = logging.getLogger(__name__)
# Errors that say the database is not answering, not that a statement is wrong.
UNAVAILABLE = (OperationalError, InterfaceError, DisconnectionError, PoolTimeout)


def translate(error: BaseException) -> BaseException:
    """The project's exception for a driver exception; any other exception comes back as it is."""
    if isinstance(error, IntegrityError):
        return Conflict(str(error.orig))
    if isinstance(error, UNAVAILABLE):
        log.warning("database unavailable: %s", type(error).__name__)
        return ServiceUnavailable()
    return error


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

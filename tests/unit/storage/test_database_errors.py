"""Driver errors that say the database is not answering leave storage as ServiceUnavailable, whichever the driver."""

import pytest
from sqlalchemy.exc import DBAPIError

from aftersales.domain.errors import ServiceUnavailable
from aftersales.storage.database_errors import translate


class Refused(Exception):
    """A driver error as asyncpg's adapter raises it: a plain DBAPI error that carries the SQLSTATE."""

    def __init__(self, sqlstate: str) -> None:
        super().__init__("refused")
        self.sqlstate = sqlstate


@pytest.mark.parametrize("sqlstate", ["57014", "08006", "40001", "40P01", "53300", "57P01"])
def test_a_timeout_a_lost_connection_a_deadlock_or_a_shutdown_is_service_unavailable(sqlstate):
    error = DBAPIError("SELECT 1", None, Refused(sqlstate))
    assert isinstance(translate(error), ServiceUnavailable)


def test_a_statement_the_database_refused_as_wrong_is_left_as_it_is():
    error = DBAPIError("SELECT nothing", None, Refused("42703"))  # undefined_column
    assert translate(error) is error


def test_a_refused_connection_is_service_unavailable():
    assert isinstance(translate(ConnectionRefusedError(111, "refused")), ServiceUnavailable)

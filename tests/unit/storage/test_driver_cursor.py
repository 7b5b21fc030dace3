"""The driver cursor's statements carry each driver's own parameter markers."""

from sqlalchemy.dialects import postgresql, sqlite

from aftersales.storage.driver_cursor import marked

SQL = "SELECT a FROM t WHERE b = {p} AND c IN ({p}, {p}) LIMIT {p}"


def test_each_marker_is_numbered_in_order_for_asyncpg():
    dialect = postgresql.asyncpg.dialect()
    assert marked(SQL, dialect) == "SELECT a FROM t WHERE b = $1 AND c IN ($2, $3) LIMIT $4"


def test_psycopg_and_sqlite_get_their_positional_markers():
    assert marked(SQL, postgresql.psycopg.dialect()) == "SELECT a FROM t WHERE b = %s AND c IN (%s, %s) LIMIT %s"
    assert marked(SQL, sqlite.pysqlite.dialect()) == "SELECT a FROM t WHERE b = ? AND c IN (?, ?) LIMIT ?"

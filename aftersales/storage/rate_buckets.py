"""Rate buckets every replica shares, in PostgreSQL: one atomic UPSERT ... RETURNING per charge.

The row is the bucket: its tokens and when they were counted (seconds since the epoch, as the replicas' clocks read
it). A charge refills the row to `now`, takes a token when one is there, and says whether it did, in one statement:
the row lock orders concurrent charges from every replica, and nothing is read before it is written. The arithmetic
is the in-memory bucket's (mcp/ratelimit.py), in double precision like Python's floats, so the two agree.

A call's free answering rounds (mcp/ratelimit.py) are a row too: the rounds it has had, since when.

The table has a MetaData of its own, like the worlds' tables: it is not the service's data, so `seed reset`, world
snapshots and their hashes never see it. A full bucket and an absent row mean the same, so rows idle for longer than
any bucket takes to refill are deleted now and then by the charges themselves.

Charges run on connections of their own, checked out of the engine's pool once and kept, in autocommit: a charge is
then one round trip, without the pool's checkout, ping and reset around it (measured: 44 instead of 250 microseconds
of CPU a charge). At most one is kept per thread that charges at once (the worker threads); one that fails is
dropped, and the next charge checks out a fresh one. On the event loop (storage.runner) a charge runs on the
engine's asyncpg twin instead, on the autocommit connections the runner keeps for it (closed with the twin).
"""

import queue
import re
import threading
import time
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Boolean, Column, Engine, Float, MetaData, PoolProxiedConnection, String, Table, Text
from sqlalchemy.exc import DBAPIError

from aftersales.storage.base import NAMING_CONVENTION
from aftersales.storage.database_errors import database_errors
from aftersales.storage.runner import here, kept_connection, on_loop

METADATA = MetaData(naming_convention=NAMING_CONVENTION)
RATE_BUCKETS = Table(
    "rate_buckets",
    METADATA,
    Column("world", String(32), primary_key=True),  # '' for the default world
    Column("caller", Text, primary_key=True),
    Column("bucket", Text, primary_key=True),  # "read", "write", or "answers:" and the digest of one call
    Column("tokens", Float, nullable=False),  # a bucket's tokens, or the free rounds a call has had
    Column("updated", Float, nullable=False),  # seconds since the epoch: when `tokens` was counted, or rounds began
    Column("granted", Boolean, nullable=False),  # whether the last charge was let through
)
PURGE_EVERY = 60.0  # seconds between purges, per process

# The level a bucket has refilled to at %(now)s, capped at its burst; a clock behind the row's adds nothing.
_LEVEL = "LEAST(%(burst)s, b.tokens + GREATEST(0, %(now)s - b.updated) * %(rate)s)"
_TAKE = f"""
INSERT INTO rate_buckets AS b (world, caller, bucket, tokens, updated, granted)
VALUES (%(world)s, %(caller)s, %(bucket)s, %(burst)s - 1, %(now)s, true)
ON CONFLICT (world, caller, bucket) DO UPDATE SET
    tokens = {_LEVEL} - CASE WHEN (1 - {_LEVEL}) / %(rate)s <= %(resolution)s THEN 1 ELSE 0 END,
    updated = GREATEST(b.updated, %(now)s),
    granted = (1 - {_LEVEL}) / %(rate)s <= %(resolution)s
RETURNING granted, (1 - tokens) / %(rate)s + GREATEST(0, updated - %(now)s)
"""
_ANSWER = """
INSERT INTO rate_buckets AS b (world, caller, bucket, tokens, updated, granted)
VALUES (%(world)s, %(caller)s, %(bucket)s, 1, %(now)s, true)
ON CONFLICT (world, caller, bucket) DO UPDATE SET
    tokens = CASE WHEN b.updated <= %(now)s - %(lifetime)s THEN 1 ELSE LEAST(b.tokens + 1, %(rounds)s) END,
    updated = CASE WHEN b.updated <= %(now)s - %(lifetime)s THEN %(now)s ELSE b.updated END,
    granted = b.updated <= %(now)s - %(lifetime)s OR b.tokens < %(rounds)s
RETURNING granted
"""
_PURGE = "DELETE FROM rate_buckets WHERE updated < %(before)s"


class SharedBuckets:
    """The rate buckets of every replica on one PostgreSQL database.

    Each method is one statement on a pooled connection, blocking: call it on a worker thread, never on the event
    loop. An unreachable database raises ServiceUnavailable (storage.database_errors).
    """

    def __init__(self, engine: Engine, horizon: float) -> None:
        # `horizon`: the longest a row matters (a bucket's time to refill, a free round's lifetime); older ones go.
        self._engine, self._horizon = engine, horizon
        self._purged = time.monotonic()
        self._purging = threading.Lock()
        self._idle: queue.SimpleQueue[PoolProxiedConnection] = queue.SimpleQueue()  # kept connections not in use

    def take(
        self, world: str | None, caller: str, kind: str, per_minute: int, burst: int, now: float, resolution: float
    ) -> float:
        """Take one of the caller's `kind` tokens at `now`; return 0, or the seconds until one is available."""
        params = {"world": world or "", "caller": caller, "bucket": kind, "burst": float(burst)}
        params |= {"rate": per_minute / 60, "now": now, "resolution": resolution}
        granted, wait = self._run(_TAKE, params, now)[0]
        return 0.0 if granted else max(float(wait), resolution)

    def answer(self, world: str | None, caller: str, call: str, now: float, lifetime: float, rounds: int) -> bool:
        """Count one free answering round of the call digested as `call`; False once it has had `rounds`."""
        params = {"world": world or "", "caller": caller, "bucket": f"answers:{call}", "now": now}
        params |= {"lifetime": lifetime, "rounds": float(rounds)}
        return bool(self._run(_ANSWER, params, now)[0][0])

    def close(self) -> None:
        """Give the kept connections back to the pool."""
        while True:
            try:
                connection = self._idle.get_nowait()
            except queue.Empty:
                return
            connection.close()

    def _run(self, sql: str, params: Mapping[str, Any], now: float) -> list[tuple[Any, ...]]:
        rows = self._execute(sql, params)
        self._purge_now_and_then(now)
        return rows

    def _execute(self, sql: str, params: Mapping[str, Any], fetch: bool = True) -> list[tuple[Any, ...]]:
        """Run one statement on an autocommit connection; the driver's exceptions leave translated."""
        if on_loop():
            return self._execute_on_loop(sql, params, fetch)
        dbapi_error = self._engine.dialect.loaded_dbapi.Error
        with database_errors():
            try:
                connection = self._kept()
            except dbapi_error as error:
                raise DBAPIError.instance(sql, params, error, dbapi_error) from error
            try:
                rows = _fetched(connection, sql, params, fetch)
            except dbapi_error as error:
                connection.invalidate()  # a connection that failed is not kept: the next charge opens another
                raise DBAPIError.instance(sql, params, error, dbapi_error) from error
            except BaseException:
                connection.invalidate()
                raise
            self._idle.put(connection)
            return rows

    def _execute_on_loop(self, sql: str, params: Mapping[str, Any], fetch: bool) -> list[tuple[Any, ...]]:
        """_execute on the engine's asyncpg twin, on the connection it keeps for statements like these."""
        engine = here(self._engine)
        dbapi_error = engine.dialect.loaded_dbapi.Error
        numbered, values = numbered_params(sql, params)
        with database_errors():
            try:
                with kept_connection(self._engine) as connection:
                    return _fetched(connection, numbered, values, fetch)
            except dbapi_error as error:
                raise DBAPIError.instance(sql, params, error, dbapi_error) from error

    def _kept(self) -> PoolProxiedConnection:
        """A kept connection not in use, or a new one from the pool, in autocommit."""
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        connection = self._engine.raw_connection()
        connection.driver_connection.autocommit = True  # type: ignore[union-attr]
        return connection

    def _purge_now_and_then(self, now: float) -> None:
        """Delete the rows nothing reads any more, at most once a PURGE_EVERY per process."""
        if time.monotonic() - self._purged < PURGE_EVERY or not self._purging.acquire(blocking=False):
            return
        try:
            self._purged = time.monotonic()
            self._execute(_PURGE, {"before": now - self._horizon}, fetch=False)
        finally:
            self._purging.release()


def _fetched(connection: PoolProxiedConnection, sql: str, params: Any, fetch: bool) -> list[tuple[Any, ...]]:
    cursor = connection.cursor()
    try:
        cursor.execute(sql, params)
        return [tuple(row) for row in cursor.fetchall()] if fetch else []
    finally:
        cursor.close()


_NAMED = re.compile(r"%\((\w+)\)s")
# Every number of these statements is double precision, as the bucket arithmetic is (an int clock reads as one).
_CASTS = {float: "float8", int: "float8", str: "text", bool: "boolean"}


def numbered_params(sql: str, params: Mapping[str, Any]) -> tuple[str, tuple[Any, ...]]:
    """`sql` with %(name)s markers as asyncpg's $1, $2, ... (one number per name), and the values in their order.

    Each marker is cast to its value's type: asyncpg lets the server infer a parameter's type, which `$1 - $2`
    leaves ambiguous, where psycopg sends it with the value.
    """
    names: list[str] = []

    def number(found: re.Match[str]) -> str:
        name = found[1]
        if name not in names:
            names.append(name)
        return f"${names.index(name) + 1}::{_CASTS[type(params[name])]}"

    numbered = _NAMED.sub(number, sql)
    values = (float(v) if type(v) is int else v for v in (params[name] for name in names))
    return numbered, tuple(values)

"""Where the async layers run database work: on the event loop through the asyncio driver, or on a worker thread.

On PostgreSQL (AFTERSALES_DB_ASYNCIO, on by default) the same sync storage code (the unit of work, the repositories,
the driver-cursor reads) runs inside SQLAlchemy's greenlet bridge: each statement awaits asyncpg on the event loop,
so a call hops to no worker thread and no statement blocks the loop. Its engines are the asyncpg twins of the
psycopg engines the rest of the process keeps (storage.database); `here(engine)` and `sessions_here` name the one
to use. Work that runs off the loop (the CLI, the audit writer's thread, admin operations on worker threads) keeps
psycopg. SQLite has no asyncio driver: its writes run on a worker thread, and so do its reads unless they are
bounded (AFTERSALES_SQLITE_LOOP_READ_STEPS): then a read runs on the event loop, on the engine's reader (a pool of
connections opened read-only, storage.database.loop_reader), with SQLite's progress handler stopping each of its
statements after that many virtual-machine steps, and any write or lock refused at once; a read stopped that way (or
one that failed, or one that reached for the writable pool) runs again on a worker thread, from the start, and that
answer is returned. A read is tried on the loop only when the reader has a connection to spare, so the loop never
waits for one.

asyncpg connections belong to the loop that opened them, so twins are kept per loop and closed when it shuts
down (asyncio closes open async generators then: each loop holds one whose `finally` closes its twins), or when
their psycopg engine is disposed (`dispose`): at once if none of their connections is out, else once the last
is back (a connection given back to a disposed pool would stay open until collected).
"""

import asyncio
import concurrent.futures
import threading
import weakref
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

import anyio.to_thread
from sqlalchemy import Engine, PoolProxiedConnection
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.util import greenlet_spawn

from aftersales.storage.database import (
    LOOP_READ,
    ON_LOOP,
    LoopRead,
    Reader,
    loop_reader,
    loop_twin_recipe,
    make_session_factory,
)

T = TypeVar("T")


@dataclass(eq=False)
class Twin:
    """A psycopg engine's twin on asyncpg, on one event loop, with its session factory."""

    engine: AsyncEngine
    sessions: sessionmaker[Session]
    # Autocommit connections kept out of the pool for single statements (kept_connection), not in use.
    kept: list[PoolProxiedConnection] = field(default_factory=list)
    closed: bool = False  # closing or closed (disposed): it keeps no connection any more


KEPT = 4  # kept connections per twin at most; a busier moment's extra ones go back to the pool

_lock = threading.Lock()  # engines are disposed from worker threads too
_twins: dict[asyncio.AbstractEventLoop, dict[Engine, Twin]] = {}
_closers: dict[asyncio.AbstractEventLoop, AsyncIterator[None]] = {}
_retiring: dict[asyncio.AbstractEventLoop, list[Twin]] = {}  # disposed while connections were out
# Each twin by its sync facade, the engine its sessions are bound to (a lone read finds its kept connections so).
# Weak both ways: a twin's engine is its own key, so a strong value would keep every twin ever made.
_twin_of: "weakref.WeakKeyDictionary[Engine, weakref.ref[Twin]]" = weakref.WeakKeyDictionary()
_disposing: set["asyncio.Future[None] | concurrent.futures.Future[None]"] = (
    set()
)  # disposals scheduled on a loop, kept until they end


def on_loop() -> bool:
    """Whether the running code is database work on the event loop (inside DatabaseRunner's bridge)."""
    return ON_LOOP.get()


def here(engine: Engine) -> Engine:
    """The engine to run statements on from here: `engine`, on the event loop its asyncpg twin's sync facade, or in
    a bounded SQLite read its reader."""
    place = _loop_place(engine)
    return place.engine if place is not None else engine


def sessions_here(engine: Engine, sessions: sessionmaker[Session]) -> sessionmaker[Session]:
    """`sessions` (bound to `engine`), on the event loop the session factory of `engine`'s asyncpg twin, or in a
    bounded SQLite read its reader's."""
    place = _loop_place(engine)
    return place.sessions if place is not None else sessions


def _loop_place(engine: Engine) -> Reader | None:
    """Where `engine`'s work runs from here when that is not `engine` itself: its twin, or its SQLite reader."""
    if ON_LOOP.get():
        twin = _twin(engine)
        return Reader(twin.engine.sync_engine, twin.sessions)
    if LOOP_READ.get() is not None:
        return loop_reader(engine)
    return None


class DatabaseRunner:
    """Runs the async layers' database work: `await runner.read(fn)` for reads, `await runner.write(fn)` for writes.

    `fn` is sync code over storage (a service call on a unit of work); with `on_loop` (PostgreSQL on asyncpg) it runs
    in the greenlet bridge on the event loop, otherwise on a worker thread. With `loop_read_steps` (SQLite) a read
    `fn` is tried on the event loop first, bounded, when `engine()` (the engine it will read) has an idle connection;
    it must then be safe to run twice, as reads are.
    """

    def __init__(self, on_loop: bool, loop_read_steps: int = 0, engine: Callable[[], Engine] | None = None) -> None:
        self.on_loop = on_loop
        self._steps = loop_read_steps if engine is not None else 0
        self._engine: Callable[[], Engine] | None = engine
        self.reruns = 0  # bounded reads that ran past their bound (or failed) on the loop and ran again on a thread

    async def read(self, fn: Callable[[], T]) -> T:
        """Run the read `fn` and return what it returns."""
        if self._steps and not self.on_loop and self._idle_connection():
            read = LoopRead(self._steps)
            token = LOOP_READ.set(read)
            try:
                result = fn()
            except Exception:
                if not read.interrupted:
                    raise
            else:
                if not read.interrupted:
                    return result
            finally:
                LOOP_READ.reset(token)
            self.reruns += 1
        return await self._run(fn)

    async def write(self, fn: Callable[[], T]) -> T:
        """Run `fn`, which writes, and return what it returns."""
        return await self._run(fn)

    async def _run(self, fn: Callable[[], T]) -> T:
        if not self.on_loop or not await _watched_loop():
            return await anyio.to_thread.run_sync(fn)
        token = ON_LOOP.set(True)
        try:
            result: T = await greenlet_spawn(fn)
            return result
        finally:
            ON_LOOP.reset(token)
            if _retiring:
                await _retire(asyncio.get_running_loop())

    def _idle_connection(self) -> bool:
        """Whether the read's engine has a reader with a connection to spare (taking one then never waits)."""
        assert self._engine is not None
        reader = loop_reader(self._engine())
        if reader is None:
            return False
        pool = reader.engine.pool
        checked_out, size = getattr(pool, "checkedout", None), getattr(pool, "size", None)
        return checked_out is not None and size is not None and checked_out() < size()

    async def close(self) -> None:
        """Close this loop's twins (at the end of a server's lifespan; a loop's shutdown does it too)."""
        await _dispose_loop(asyncio.get_running_loop())


def checked_out(engine: Engine) -> int:
    """How many connections `engine`'s twins have out, on every loop (a call is using them)."""
    with _lock:
        twins = [by_engine[engine] for by_engine in _twins.values() if engine in by_engine]
    return sum(_out(twin) for twin in twins)


def _out(twin: Twin) -> int:
    """How many of the twin's connections a call is using (kept ones waiting for their next statement are not)."""
    out = getattr(twin.engine.sync_engine.pool, "checkedout", None)
    return (int(out()) if out is not None else 0) - len(twin.kept)


@contextmanager
def kept_connection(engine: Engine, fresh: bool = False) -> Iterator[PoolProxiedConnection]:
    """On the event loop, an autocommit connection of `engine`'s twin kept between single statements: no checkout,
    ping or reset around each (the rate buckets' charges, lone reads). One that fails is dropped; the next opens
    another. `engine` is a psycopg engine made here, or its twin's sync facade (a twin session's bind). `fresh`:
    drop the kept ones (one was found dead, so after a restart they all are) and take one from the pool, pinged."""
    found = _twin_of.get(engine)
    twin = found() if found is not None else None
    if twin is None and loop_twin_recipe(engine) is not None:
        twin = _twin(engine)
    if twin is None or twin.closed:  # a disposed twin's session still running: a connection of its own, not kept
        owner = twin.engine.sync_engine if twin is not None else engine
        with closing(owner.raw_connection()) as alone:
            alone.dbapi_connection.autocommit = True  # type: ignore[union-attr]
            yield alone
        return
    if fresh:
        while twin.kept:
            twin.kept.pop().invalidate()
    if twin.kept:
        connection = twin.kept.pop()
    else:
        connection = twin.engine.sync_engine.raw_connection()
        connection.dbapi_connection.autocommit = True  # type: ignore[union-attr]
    try:
        yield connection
    except BaseException:
        connection.invalidate()
        raise
    if not connection.is_valid:  # invalidated inside the block (found dead): the next statement opens another
        return
    if len(twin.kept) < KEPT and not twin.closed:
        twin.kept.append(connection)
    else:
        _give_back(connection)


def _give_back(connection: PoolProxiedConnection) -> None:
    connection.dbapi_connection.autocommit = False  # type: ignore[union-attr]
    connection.close()


def _give_back_kept(twin: Twin) -> None:
    while twin.kept:
        _give_back(twin.kept.pop())


async def _close(twin: Twin) -> None:
    """Close a twin: its kept connections back to its pool (in the bridge: that may close them), then the pool."""
    twin.closed = True
    if twin.kept:
        await greenlet_spawn(_give_back_kept, twin)
    await twin.engine.dispose()


def dispose(engine: Engine) -> None:
    """Dispose `engine`, and its twins on every loop (each closed on its own loop; from any thread)."""
    engine.dispose()
    with _lock:
        twins = [(loop, by_engine.pop(engine)) for loop, by_engine in _twins.items() if engine in by_engine]
        busy = [(loop, twin) for loop, twin in twins if _out(twin)]
        for loop, twin in busy:
            _retiring.setdefault(loop, []).append(twin)
    for loop, twin in twins:
        if loop.is_closed() or (loop, twin) in busy:
            continue
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        # Not waited for: whoever disposes (a world's drop or reset) ends the connections still open itself.
        pending: asyncio.Future[None] | concurrent.futures.Future[None]
        if running is loop:
            pending = loop.create_task(_close(twin))
        else:
            pending = asyncio.run_coroutine_threadsafe(_close(twin), loop)
        _disposing.add(pending)
        pending.add_done_callback(_disposing.discard)


def _twin(engine: Engine) -> Twin:
    """`engine`'s twin on the running loop, made on first use."""
    loop = asyncio.get_running_loop()
    with _lock:
        by_engine = _twins.setdefault(loop, {})
        twin = by_engine.get(engine)
        if twin is None:
            recipe = loop_twin_recipe(engine)
            if recipe is None:
                raise RuntimeError(f"no asyncio driver for the {engine.dialect.name} engine")
            made = recipe()
            twin = by_engine[engine] = Twin(made, make_session_factory(made.sync_engine))
            _twin_of[made.sync_engine] = weakref.ref(twin)
    return twin


async def _watched_loop() -> bool:
    """Make sure this loop's twins close when it shuts down; False on an event loop that is not asyncio's."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # trio, through anyio: asyncpg runs on asyncio only
        return False
    if loop not in _closers:
        closer = _closer(loop)
        _closers[loop] = closer
        await closer.__anext__()  # now registered with the loop, which closes it in shutdown_asyncgens
    return True


async def _closer(loop: asyncio.AbstractEventLoop) -> AsyncIterator[None]:
    try:
        yield
    finally:
        _closers.pop(loop, None)
        await _dispose_loop(loop)


async def _retire(loop: asyncio.AbstractEventLoop) -> None:
    """Close the disposed twins of this loop whose connections are all back."""
    with _lock:
        waiting = _retiring.get(loop, [])
        done = [twin for twin in waiting if not _out(twin)]
        waiting[:] = [twin for twin in waiting if _out(twin)]
        if not waiting:
            _retiring.pop(loop, None)
    for twin in done:
        await _close(twin)


async def _dispose_loop(loop: asyncio.AbstractEventLoop) -> None:
    with _lock:
        twins = [*_twins.pop(loop, {}).values(), *_retiring.pop(loop, [])]
    for twin in twins:
        await _close(twin)

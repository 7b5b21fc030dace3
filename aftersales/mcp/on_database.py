"""Tool bodies and resolvers are sync code over the services; this runs them where the database work runs."""

import functools
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from aftersales.storage.runner import DatabaseRunner

P = ParamSpec("P")
R = TypeVar("R")


def on_database(database: DatabaseRunner, write: bool = False) -> Callable[[Callable[P, R]], Callable[P, Awaitable[R]]]:
    """Make the decorated sync function a coroutine that runs it through `database` (as a write if `write`).

    The SDK would run a sync tool on a worker thread itself; as a coroutine it is awaited on the event loop, and the
    runner decides: on PostgreSQL its statements await the asyncio driver there, on SQLite it runs on a worker thread.
    Its signature (the tool's input schema) is the decorated function's.
    """

    def wrap(fn: Callable[P, R]) -> Callable[P, Awaitable[R]]:
        @functools.wraps(fn)
        async def run(*args: P.args, **kwargs: P.kwargs) -> R:
            work = functools.partial(fn, *args, **kwargs)
            return await (database.write(work) if write else database.read(work))

        return run

    return wrap

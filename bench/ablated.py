"""`aftersales` with parts of a call taken out, to measure what each part costs (`bench.cpu --ablate`).

A measuring tool, never a way to serve: each ablation changes an answer or breaks a rule of the service. Run as
`python -m bench.ablated serve ...` with AFTERSALES_BENCH_ABLATE naming the ablations, joined by "+":

- `middlewares`: the five tool middlewares (trace, surface, recorder, rate limiter, argument check) pass every
  call straight through.
- `read`: after_sales_query_ticket answers a fixed ticket (the floor's) instead of reading one; the tool still
  runs on a worker thread.
- `hop`: sync tools run on the event loop instead of a worker thread, database I/O included, which the service
  never does (one slow statement would stall every other call).
- `executor`: sync tools hop to a thread through `loop.run_in_executor` instead of anyio's `to_thread`.
"""

import asyncio
import contextvars
import functools
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

ABLATE = "AFTERSALES_BENCH_ABLATE"


def _no_middlewares() -> None:
    from aftersales.mcp import arguments, ratelimit, recorder, surface, tracing

    async def straight_through(self: object, ctx: Any, call_next: Callable[[Any], Any]) -> Any:
        return await call_next(ctx)

    for kind in (tracing.CallTracer, surface.ServedSurface, recorder.CallRecorder, ratelimit.RateLimiter):
        kind.__call__ = straight_through  # type: ignore[method-assign]
    arguments.ArgumentGate.__call__ = straight_through  # type: ignore[method-assign]


def _no_read() -> None:
    from aftersales.services import ticket_queries
    from bench.floor import TICKET

    ticket_queries.query_ticket = lambda uow, ticket_id: TICKET


def _sync_tools(run: Callable[[Callable[[], Any]], Any]) -> None:
    """Make the SDK call sync tools through `run` (an awaitable of a no-argument callable's result)."""
    from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata

    async def call_fn(
        self: FuncMetadata,
        fn: Callable[..., Any],
        fn_is_async: bool,
        arguments: dict[str, Any],
        arguments_to_pass_directly: dict[str, Any] | None = None,
    ) -> Any:
        call = functools.partial(fn, **(arguments | (arguments_to_pass_directly or {})))
        return await call() if fn_is_async else await run(call)

    FuncMetadata.call_fn = call_fn  # type: ignore[method-assign]


def _on_the_loop() -> None:
    async def inline(call: Callable[[], Any]) -> Any:
        return call()

    _sync_tools(inline)


def _through_an_executor() -> None:
    pool = ThreadPoolExecutor(4, thread_name_prefix="ablated")

    async def hop(call: Callable[[], Any]) -> Any:
        # anyio's to_thread carries the context (the caller, the world, the clock); run_in_executor must be told to.
        context = contextvars.copy_context()
        return await asyncio.get_running_loop().run_in_executor(pool, context.run, call)

    _sync_tools(hop)


ABLATIONS: dict[str, Callable[[], None]] = {
    "middlewares": _no_middlewares,
    "read": _no_read,
    "hop": _on_the_loop,
    "executor": _through_an_executor,
}


def apply(spec: str) -> None:
    """Apply the ablations named in `spec` ("a+b"); an unknown name is an error, not a silent full run."""
    for name in filter(None, spec.split("+")):
        if name not in ABLATIONS:
            raise SystemExit(f"{ABLATE}: unknown ablation {name!r}; known: {', '.join(ABLATIONS)}")
        ABLATIONS[name]()


if __name__ == "__main__":
    apply(os.environ.get(ABLATE, ""))
    from aftersales.cli.main import main

    raise SystemExit(main())

"""Per-caller token buckets for tool calls: read tools and write tools are limited separately, per replica.

Buckets are kept per world too: episodes in different worlds never throttle each other.
"""

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer

from aftersales.domain.errors import RateLimited
from aftersales.mcp.caller import current_caller_id
from aftersales.mcp.errors import error_result
from aftersales.mcp.requests import tool_call
from aftersales.worlds.context import current_id


@dataclass(frozen=True)
class Limit:
    """A sustained rate and a burst."""

    per_minute: int
    burst: int


class Bucket:
    """A token bucket: `burst` tokens, refilled at `per_minute / 60` a second."""

    def __init__(self, limit: Limit, now: float) -> None:
        self.limit, self.tokens, self.updated = limit, float(limit.burst), now

    def take(self, now: float) -> float:
        """Take a token; return 0, or the seconds until one is available."""
        rate = self.limit.per_minute / 60
        self.tokens = min(self.limit.burst, self.tokens + (now - self.updated) * rate)
        self.updated = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / rate


class RateLimiter:
    """Server middleware: refuse a caller's tools/call beyond its read or write limit with a retryable error."""

    def __init__(
        self, server: MCPServer, read: Limit, write: Limit, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._server, self._limits, self._clock = server, {"read": read, "write": write}, clock
        self._kinds: dict[str, str] | None = None
        self._buckets: dict[tuple[str | None, str, str], Bucket] = {}
        self._lock = threading.Lock()

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Spend a token for tools/call; everything else passes."""
        params = tool_call(ctx)
        if params is None:
            return await call_next(ctx)
        kinds = await self._load()
        kind = kinds.get(str(params.get("name")))
        if kind is None:  # unknown tools are the argument gate's to refuse
            return await call_next(ctx)
        caller = current_caller_id()
        wait = self._take(caller, kind)
        if wait > 0:
            return error_result(self._refusal(caller, kind, wait)).model_dump(by_alias=True, exclude_none=True)
        return await call_next(ctx)

    def _take(self, caller: str, kind: str) -> float:
        now, key = self._clock(), (current_id(), caller, kind)
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                bucket = self._buckets[key] = Bucket(self._limits[kind], now)
            return bucket.take(now)

    def _refusal(self, caller: str, kind: str, wait: float) -> RateLimited:
        limit = self._limits[kind]
        seconds = max(0.1, round(wait, 1))
        return RateLimited(
            f'Caller "{caller}" sent more {kind} calls than allowed ({limit.per_minute} a minute, bursts of '
            f"{limit.burst}); this call was not run.",
            "Each caller's read tools and write tools are rate-limited separately.",
            f"This is retryable: wait {seconds} seconds, then send the same call again.",
            retry_after=seconds,
        )

    async def _load(self) -> dict[str, str]:
        """Each tool's kind from its annotations: read-only tools are reads, the rest writes."""
        if self._kinds is None:
            tools = await self._server.list_tools()
            self._kinds = {
                t.name: "read" if t.annotations is not None and t.annotations.read_only_hint else "write" for t in tools
            }
        return self._kinds

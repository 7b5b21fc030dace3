"""Per-caller token buckets: read calls and write calls are limited separately, per replica.

Read calls are read-only tools and reads of a resource template (a ticket or an order by id): both read the database
for one caller, so one bucket counts them together and neither is a way around the other's limit. The fixed
resources (the policy text) are served from memory and pass. Buckets are kept per world too: episodes in different
worlds never throttle each other.
"""

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.shared.uri_template import UriTemplate

from aftersales.domain.errors import RateLimited
from aftersales.mcp.caller import current_caller_id
from aftersales.mcp.errors import error_result, protocol_error
from aftersales.mcp.requests import resource_read, tool_call
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
    """Server middleware: refuse a caller's tools/call or resources/read beyond its read or write limit, retryably.

    A tool call is refused with an isError result; a resource read, which has no such result, with the JSON-RPC
    error resources use for problems the caller can fix.
    """

    def __init__(
        self, server: MCPServer, read: Limit, write: Limit, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._server, self._limits, self._clock = server, {"read": read, "write": write}, clock
        self._kinds: dict[str, str] | None = None
        self._resources: tuple[frozenset[str], list[UriTemplate]] | None = None  # fixed URIs, templates
        self._buckets: dict[tuple[str | None, str, str], Bucket] = {}
        self._lock = threading.Lock()

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Spend a token for tools/call and for reading a resource template; everything else passes."""
        params = tool_call(ctx)
        if params is not None:
            kind = (await self._tool_kinds()).get(str(params.get("name")))  # unknown tools: the argument gate's
            if kind is not None and (refusal := self._spend(kind, "call")) is not None:
                return error_result(refusal).model_dump(by_alias=True, exclude_none=True)
            return await call_next(ctx)
        uri = resource_read(ctx)
        if (
            uri is not None
            and await self._templated(uri)
            and (refusal := self._spend("read", "resource read")) is not None
        ):
            raise protocol_error(refusal)
        return await call_next(ctx)

    def _spend(self, kind: str, request: str) -> RateLimited | None:
        """Take one of the caller's `kind` tokens in the current world; the refusal when none is left."""
        caller = current_caller_id()
        now, key = self._clock(), (current_id(), caller, kind)
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                bucket = self._buckets[key] = Bucket(self._limits[kind], now)
            wait = bucket.take(now)
        return self._refusal(caller, kind, wait, request) if wait > 0 else None

    def _refusal(self, caller: str, kind: str, wait: float, request: str) -> RateLimited:
        limit = self._limits[kind]
        seconds = max(0.1, round(wait, 1))
        return RateLimited(
            f'Caller "{caller}" sent more {kind} calls than allowed ({limit.per_minute} a minute, bursts of '
            f"{limit.burst}); this {request} was not run.",
            "Each caller's read calls (read-only tools, and resources read by id such as a ticket or an order) and "
            "write calls are rate-limited separately.",
            f"This is retryable: wait {seconds} seconds, then send the same request again.",
            retry_after=seconds,
        )

    async def _tool_kinds(self) -> dict[str, str]:
        """Each tool's kind from its annotations: read-only tools are reads, the rest writes."""
        if self._kinds is None:
            tools = await self._server.list_tools()
            self._kinds = {
                t.name: "read" if t.annotations is not None and t.annotations.read_only_hint else "write" for t in tools
            }
        return self._kinds

    async def _templated(self, uri: str) -> bool:
        """Whether `uri` reads a resource template (one row by id), not a fixed resource."""
        if self._resources is None:
            fixed = frozenset(str(r.uri) for r in await self._server.list_resources())
            templates = [UriTemplate.parse(t.uri_template) for t in await self._server.list_resource_templates()]
            self._resources = fixed, templates
        fixed, templates = self._resources
        # A fixed resource wins over a template that also matches, as the SDK resolves them.
        return uri not in fixed and any(template.match(uri) is not None for template in templates)

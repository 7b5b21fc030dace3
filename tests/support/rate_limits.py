"""The rate limiter driven by hand: a server with one tool of each kind, a clock that moves when told, requests sent."""

from types import SimpleNamespace
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

from aftersales.domain.callers import Caller
from aftersales.mcp.caller import acting_as
from aftersales.mcp.ratelimit import Limit, RateLimiter
from aftersales.storage.rate_buckets import SharedBuckets

READS = Limit(per_minute=6, burst=3)  # a token every 10 seconds
WRITES = Limit(per_minute=60, burst=1)  # a token every second
SERVED = {"served": True}
STATE_TTL = 600.0


class Clock:
    """A monotonic clock that moves only when a test says so."""

    def __init__(self) -> None:
        self.seconds = 1000.0

    def __call__(self) -> float:
        return self.seconds


def tools() -> MCPServer:
    """A server with one read-only tool, one tool that writes, a resource template and a fixed resource."""
    server = MCPServer("limited")

    @server.resource("limited://things/{thing_id}")
    def thing(thing_id: str) -> str:
        return thing_id

    @server.resource("limited://rules")
    def rules() -> str:
        return "rules"

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def look() -> str:
        return "seen"

    @server.tool(annotations=ToolAnnotations(read_only_hint=False))
    def change() -> str:
        return "changed"

    return server


class Limited:
    """The limiter over `tools()`, and how many calls it let through to the tool."""

    def __init__(
        self,
        reads: Limit = READS,
        writes: Limit = WRITES,
        shared: SharedBuckets | None = None,
        clock: "Clock | None" = None,
    ) -> None:
        # Limiters given one `shared` and one `clock` are replicas on one database.
        self.clock = clock or Clock()
        self.limiter = RateLimiter(
            tools(), read=reads, write=writes, clock=self.clock, state_ttl=STATE_TTL, shared=shared
        )
        self.served = 0

    async def call(self, caller: Caller | None, tool: str, method: str = "tools/call") -> dict[str, Any]:
        """Send one request through the limiter as `caller` (None: no authenticated caller)."""
        return await self.send(caller, method, {"name": tool, "arguments": {}})

    async def answer(self, caller: Caller | None, tool: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send the round that answers a call's questions, with the requestState the SDK's boundary verified."""
        answers = {"confirm": {"action": "accept", "content": {"confirm": True}}}
        params = {"name": tool, "arguments": arguments or {}, "inputResponses": answers, "requestState": "verified"}
        return await self.send(caller, "tools/call", params)

    async def read(self, caller: Caller | None, uri: str) -> dict[str, Any]:
        """Read one resource through the limiter as `caller`."""
        return await self.send(caller, "resources/read", {"uri": uri})

    async def send(self, caller: Caller | None, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send one request through the limiter as `caller`; what the next handler answered, or the refusal."""

        async def call_next(_ctx: Any) -> dict[str, Any]:
            self.served += 1
            return SERVED

        ctx: Any = SimpleNamespace(method=method, params=params)
        if caller is None:
            result = await self.limiter(ctx, call_next)
        else:
            with acting_as(caller):
                result = await self.limiter(ctx, call_next)
        assert isinstance(result, dict)  # the next handler's answer, or the limiter's refusal: both plain results
        return result

    async def calls(self, caller: Caller | None, tool: str, count: int) -> list[bool]:
        """Send `count` calls at this moment; whether each was served."""
        return [await self.call(caller, tool) == SERVED for _ in range(count)]

    def wait(self, seconds: float) -> None:
        self.clock.seconds += seconds


def retry_after(result: dict[str, Any]) -> float:
    """The seconds a refusal tells the caller to wait."""
    assert result["isError"] is True
    return float(result["_meta"]["aftersales/retryAfterSeconds"])

"""A load generator speaking raw JSON-RPC over keep-alive HTTP, the way a 2026-07-28 client does."""

import asyncio
import itertools
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp

PROTOCOL = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": PROTOCOL,
    "io.modelcontextprotocol/clientInfo": {"name": "aftersales-bench", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
}
_ids = itertools.count(1)


@dataclass
class Outcome:
    """Latencies (seconds) of completed operations and counts of failed ones."""

    latencies: list[float] = field(default_factory=list)
    failures: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    wall: float = 0.0
    client_cpu: float = 0.0

    def fail(self, why: str) -> None:
        self.failures += 1
        self.errors[why] = self.errors.get(why, 0) + 1


class Session:
    """One keep-alive connection's worth of calls against one MCP endpoint."""

    def __init__(self, http: aiohttp.ClientSession, url: str, token: str | None) -> None:
        self.http, self.url = http, url
        self.headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": PROTOCOL,
            "Mcp-Method": "tools/call",
        }
        if token:
            self.headers["Authorization"] = f"Bearer {token}"

    async def call(self, tool: str, arguments: dict[str, Any], **extra: Any) -> dict[str, Any]:
        """tools/call; return the JSON-RPC result or raise with the reason."""
        body = {
            "jsonrpc": "2.0",
            "id": next(_ids),
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments, "_meta": META, **extra},
        }
        async with self.http.post(self.url, data=json.dumps(body), headers={**self.headers, "Mcp-Name": tool}) as reply:
            if reply.status != 200:
                raise RuntimeError(f"http {reply.status}")
            answer = await reply.json(content_type=None)
        if "error" in answer:
            raise RuntimeError(f"jsonrpc {answer['error'].get('code')}")
        result = answer["result"]
        if result.get("isError"):
            raise RuntimeError(f"tool error: {result['content'][0]['text'][:60]}")
        return result


Operation = Callable[[Session, int], Awaitable[None]]


async def drive(
    url: str, token: str | None, operation: Operation, connections: int, warmup: float, duration: float
) -> Outcome:
    """Run `operation` on `connections` keep-alive connections: warm up, then measure for `duration` seconds."""
    outcome = Outcome()
    counter = itertools.count()
    connector = aiohttp.TCPConnector(limit=connections, force_close=False)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=60)) as http:
        session = Session(http, url, token)
        start = time.monotonic()
        measure_from, stop_at = start + warmup, start + warmup + duration
        cpu_at_start: list[float] = []

        async def worker() -> None:
            while (now := time.monotonic()) < stop_at:
                began = time.perf_counter()
                try:
                    await operation(session, next(counter))
                except (TimeoutError, RuntimeError, aiohttp.ClientError, KeyError) as problem:
                    if now >= measure_from:
                        outcome.fail(str(problem).split(":")[0])
                    continue
                if now >= measure_from:
                    if not cpu_at_start:
                        cpu_at_start.append(time.process_time())
                    outcome.latencies.append(time.perf_counter() - began)

        await asyncio.gather(*(worker() for _ in range(connections)))
        outcome.wall = time.monotonic() - measure_from
        outcome.client_cpu = time.process_time() - (cpu_at_start[0] if cpu_at_start else time.process_time())
    return outcome

"""Two checks beside the scenarios: memory over a long run at full load, and wrk as a second load generator."""

import asyncio
import json
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.load import META, PROTOCOL, Operation, drive
from bench.servers import Server

LEAK_LIMIT = 0.05  # RSS may grow 5% from the end of the warm-up to the end of the run before it counts as growth


async def leak_check(server: Server, token: str, operation: Operation, seconds: float, every: float = 5.0) -> dict:
    """Drive `operation` at full load for `seconds`, sampling the server's RSS; report its growth."""
    samples: list[tuple[float, float]] = []
    started = time.monotonic()

    async def sample() -> None:
        while True:
            samples.append((round(time.monotonic() - started, 1), server.rss_mb()))
            await asyncio.sleep(every)

    sampler = asyncio.create_task(sample())
    outcome = await drive(server.url, token, operation, 16, 0.0, seconds)
    sampler.cancel()
    samples.append((round(time.monotonic() - started, 1), server.rss_mb()))
    # The first samples cover the warm-up (imports, pools, caches filling); growth is measured after it.
    settled = [mb for at, mb in samples if at >= min(10.0, seconds / 4)]
    base, end = settled[0], settled[-1]
    growth = round((end - base) / base, 3)
    return {
        "seconds": seconds,
        "operation": "query, estimate and create in turn, 16 connections",
        "calls": len(outcome.latencies),
        "failures": outcome.failures,
        "rss_mb_samples": samples,
        "rss_mb_after_warmup": base,
        "rss_mb_at_end": end,
        "growth": growth,
        "growth_limit": LEAK_LIMIT,
    }


WRK_SCRIPT = """
wrk.method = "POST"
wrk.body = {body}
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "{protocol}"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "after_sales_query_ticket"
{auth}
"""


def wrk(server: Server, token: str | None, ticket_id: str, seconds: float) -> dict[str, Any] | None:
    """wrk, 1 thread and 16 connections, calling after_sales_query_ticket on one ticket; None without wrk."""
    binary = shutil.which("wrk")
    if binary is None:
        return None
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "after_sales_query_ticket", "arguments": {"ticket_id": ticket_id}, "_meta": META},
    }
    auth = f'wrk.headers["Authorization"] = "Bearer {token}"' if token else ""
    script = WRK_SCRIPT.format(body=json.dumps(json.dumps(body)), protocol=PROTOCOL, auth=auth)
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as file:
        file.write(script)
    try:
        command = [binary, "-t1", "-c16", f"-d{int(seconds)}s", "--latency", "-s", file.name, server.url]
        out = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60, check=True).stdout
    finally:
        Path(file.name).unlink()
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),  # type: ignore[union-attr]
        "p50": re.search(r"50%\s+(\S+)", out).group(1),  # type: ignore[union-attr]
        "non_2xx": int(errors.group(1)) if errors else 0,
    }

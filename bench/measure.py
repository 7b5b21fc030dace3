"""One measured scenario: its figures, printed as it finishes, and medians over rounds."""

import argparse
import statistics
from typing import Any

from aftersales.domain.calls import percentile
from bench.load import Outcome, drive
from bench.servers import Server


def figures(name: str, outcome: Outcome, server: Server, cpu: float) -> dict[str, Any]:
    return {
        "scenario": name,
        "requests": len(outcome.latencies),
        "failures": outcome.failures,
        "errors": outcome.errors,
        "rps": round(len(outcome.latencies) / outcome.wall, 1),
        # Nearest-rank, as `aftersales stats` reports them, so the two are comparable (latencies are in seconds).
        "p50_ms": round(percentile(outcome.latencies, 0.5) * 1000, 2),
        "p95_ms": round(percentile(outcome.latencies, 0.95) * 1000, 2),
        "p99_ms": round(percentile(outcome.latencies, 0.99) * 1000, 2),
        "server_peak_rss_mb": max(server.peak_rss_mb().values()),
        "server_cpu_share": round(cpu / outcome.wall, 2),
        "loadgen_cpu_share": round(outcome.client_cpu / outcome.wall, 2),
    }


async def measure(
    server: Server, token: str | None, name: str, operation: Any, args: argparse.Namespace, connections: int = 0
) -> dict[str, Any]:
    cpu = server.cpu_seconds()
    outcome = await drive(server.url, token, operation, connections or args.connections, args.warmup, args.duration)
    row = figures(name, outcome, server, server.cpu_seconds() - cpu)
    print(
        f"    {server.name:<22} {name:<22} {row['rps']:>8} rps  p50 {row['p50_ms']:>7} ms  "
        f"p95 {row['p95_ms']:>7} ms  failures {row['failures']}",
        flush=True,
    )
    return row


def median_row(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The round with the median throughput, and every round's throughput beside it."""
    chosen = sorted(rows, key=lambda row: row["rps"])[(len(rows) - 1) // 2]
    return {**chosen, "rounds_rps": [row["rps"] for row in rows]}


def median(values: list[float]) -> float:
    return round(statistics.median(values), 3)

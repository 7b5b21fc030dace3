"""Query and estimate latency as the data grows: 1,000, 100,000 and 1,000,000 tickets (worlds cached for the day)."""

import argparse
from typing import Any

from aftersales.clock import now
from bench.measure import measure
from bench.scenarios import build_world, inputs_from, scenarios, sqlite_url
from bench.servers import WORK, progress, start_aftersales


async def scale(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Query and estimate latency as the data grows (four connections, SQLite, worlds cached for the day)."""
    results = []
    stamp = now().strftime("%Y%m%d")
    for tickets in args.sizes:
        database = WORK / f"scale-{tickets}-{stamp}.db"
        for old in WORK.glob(f"scale-{tickets}-*.db*"):
            if not old.name.startswith(database.name):
                old.unlink()
        if not database.exists():
            progress(f"generating {tickets:,} tickets into {database} (once a day) ...")
            url = sqlite_url(database)
            build_world(url, max(1000, tickets // 10), max(2000, int(tickets * 0.65)), tickets, progress=True)
        url = f"sqlite:///{database}"
        operations = scenarios(inputs_from(url))
        server, token = start_aftersales(url, WORK / "servers.log", name=f"{tickets:,} tickets")
        try:
            progress(f"scale: {tickets:,} tickets")
            query = await measure(server, token, "query_ticket", operations["query_ticket"], args, 4)
            estimate = await measure(server, token, "estimate_refund", operations["estimate_refund"], args, 4)
        finally:
            server.stop()
        results.append({"tickets": tickets, "query": query, "estimate": estimate})
    base = results[0]
    for row in results:
        row["query_p50_ratio"] = round(row["query"]["p50_ms"] / base["query"]["p50_ms"], 3)
        row["estimate_p50_ratio"] = round(row["estimate"]["p50_ms"] / base["estimate"]["p50_ms"], 3)
    return results

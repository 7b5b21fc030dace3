"""`make bench`: every figure of issues #16 and #29 in one run, against the floor and the FastMCP peer measured beside.

The servers run as separate processes, the way they are deployed; the load generator (this process) speaks raw
JSON-RPC on protocol 2026-07-28 over keep-alive connections. The machine is shared and noisy, so each scenario is
measured in several rounds, each round measuring the floor again and the peer (bench/peer.py) right after the server
on the same scenario, and the figures are medians over the rounds.
"""

import argparse
import asyncio
import json
import os
import platform
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

from aftersales.clock import now
from bench import eval as evaluation
from bench import extras, parity, report, worlds
from bench.locks import lock_waits
from bench.measure import measure, median, median_row
from bench.scale import scale
from bench.scenarios import Inputs, build_world, inputs_from, postgres_url, scenarios, sqlite_url
from bench.servers import REPO_ROOT, STARTED, WORK, Server, progress, start_aftersales, start_floor, start_peer

# "mixed": query, estimate and create in turn on every connection, the load whose p99 the bounded reads must not raise.
LOADED = ("query_ticket", "estimate_refund", "create_ticket", "input_required_create", "mixed")
ALONE = ("query_ticket", "input_required_create")  # on one connection: latency without queueing
PINNED = ("query_ticket", "estimate_refund", "create_ticket")  # measured again with server and floor on one CPU each


class Backend:
    """One database's aftersales server and FastMCP peer, their inputs, and their rows per round."""

    def __init__(self, name: str, server: Server, token: str, inputs: Inputs, peer: Server) -> None:
        self.name, self.server, self.token, self.inputs, self.peer = name, server, token, inputs, peer
        self.operations = scenarios(inputs)
        self.rows: dict[str, list[dict[str, Any]]] = {}
        self.ratios: dict[str, list[float]] = {}
        self.peer_rows: dict[str, list[dict[str, Any]]] = {}
        self.peer_ratios: dict[str, list[float]] = {}

    def keep(self, key: str, row: dict[str, Any], floor_rps: float | None = None) -> None:
        self.rows.setdefault(key, []).append(row)
        if floor_rps:
            self.ratios.setdefault(key, []).append(row["rps"] / floor_rps)

    async def round(self, floor_rps: float, args: argparse.Namespace) -> None:
        """Each scenario loaded, then on the peer; the two latencies alone; and creates on one connection."""
        for name in LOADED:
            row = await measure(self.server, self.token, name, self.operations[name], args)
            self.keep(name, row, floor_rps)
            peer = await measure(self.peer, None, name, self.operations[name], args)
            self.peer_rows.setdefault(name, []).append(peer)
            if peer["rps"]:
                self.peer_ratios.setdefault(name, []).append(row["rps"] / peer["rps"])
        for name in ALONE:
            row = await measure(self.server, self.token, name, self.operations[name], args, 1)
            self.keep(f"alone:{name}", row)
        self.keep(
            "alone:create_ticket",
            await measure(self.server, self.token, "create_ticket", self.operations["create_ticket"], args, 1),
        )

    def summary(self, connections: int) -> dict[str, Any]:
        """Today's `throughput` shape: median rows, median ratios, the concurrent-create check, the peer, the mix."""
        scenario_rows = []
        for name in LOADED:
            row = median_row(self.rows[name])
            peer = self.peer_ratios.get(name)
            scenario_rows.append(
                {**row, "ratio_to_floor": median(self.ratios[name]), "ratio_to_fastmcp": median(peer) if peer else None}
            )
        alone = {name: median_row(self.rows[f"alone:{name}"]) for name in ALONE}
        two_round = [
            two["p50_ms"] / query["p50_ms"]
            for two, query in zip(
                self.rows["alone:input_required_create"], self.rows["alone:query_ticket"], strict=True
            )
        ]
        loaded, single = self.rows["create_ticket"], self.rows["alone:create_ticket"]
        return {
            "scenarios": scenario_rows,
            "unloaded": alone,
            "two_round_to_query_p50": median(two_round),
            "concurrent_creates": {
                "connections": connections,
                "rps_at_connections": median_row(loaded)["rps"],
                "rps_at_1": median_row(single)["rps"],
                "ratio": median([many["rps"] / one["rps"] for many, one in zip(loaded, single, strict=True)]),
                # Cores the server used at 16 connections: near its ceiling, creates wait for CPU, not for a lock.
                "server_cpu_share_at_connections": median_row(loaded)["server_cpu_share"],
            },
            "fastmcp": {"scenarios": [median_row(self.peer_rows[name]) for name in LOADED]},
            "mixed_load": {
                "connections": connections,
                "operations": "query, estimate and create in turn",
                **mix(self.rows["mixed"]),
                "fastmcp": mix(self.peer_rows["mixed"]),
            },
        }


def mix(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The mixed load's latencies and throughput: each the median over the rounds, with every round's beside it."""
    figures: dict[str, Any] = {}
    for name in ("p50_ms", "p99_ms", "rps"):
        figures[name] = median([row[name] for row in rows])
        figures[f"rounds_{name}"] = [row[name] for row in rows]
    figures["failures"] = sum(row["failures"] for row in rows)
    return figures


def world_size(args: argparse.Namespace) -> tuple[int, int, int]:
    """Customers, orders and tickets of the throughput worlds (orders leave enough unused lines for creates).

    A full run's creates, the peer's and the mixed load's among them, take about 20,000 lines no ticket has.
    """
    return (5000, 20000, 5000) if args.quick else (10000, 50000, 10000)


async def throughput(args: argparse.Namespace, postgres: str | None, result: dict[str, Any]) -> None:
    """The scenarios on SQLite and PostgreSQL, the workers' scaling, wrk, and memory, all beside the floor."""
    log = WORK / "servers.log"
    urls = {"sqlite": sqlite_url(WORK / "throughput.db")}
    if postgres:
        urls["postgresql"] = postgres_url(postgres, "bench_throughput")
    backends: dict[str, Backend] = {}
    servers: list[Server] = []
    try:
        for name, url in urls.items():
            progress(f"building the {name} throughput world ({world_size(args)[2]:,} tickets) ...")
            build_world(url, *world_size(args), progress=False)
            inputs = inputs_from(url)
            progress(
                f"  {len(inputs.tickets)} tickets, {len(inputs.returnable)} returnable and "
                f"{len(inputs.repairable)} repairable lines"
            )
            server, token = start_aftersales(url, log, name=f"aftersales {name}")
            servers.append(server)
            peer = start_peer(url, log, name=f"fastmcp {name}")
            servers.append(peer)
            # Before the scenarios share the lines out: the check takes a few of its own.
            await parity.check(server.url, token, peer.url, inputs)
            progress(f"  the FastMCP peer answers as the server does on {name}")
            backends[name] = Backend(name, server, token, inputs, peer)
        floor = start_floor(log)
        floor2 = start_floor(log, workers=2)
        sqlite = backends["sqlite"]
        two, _ = start_aftersales(urls["sqlite"], log, workers=2, name="aftersales x2")
        # The SQLite server and the floor again, each pinned to one CPU (`serve --pin-cpus`), on the same database.
        floor_pinned = start_floor(log, pin=True)
        pinned, pinned_token = start_aftersales(urls["sqlite"], log, name="aftersales sqlite pinned", pin=True)
        servers += [floor, floor2, two, floor_pinned, pinned]
        pinned_rows: dict[str, list[dict[str, Any]]] = {name: [] for name in ("floor", *PINNED)}
        pinned_ratios: dict[str, list[float]] = {name: [] for name in PINNED}
        creates = {}  # PostgreSQL creates on one worker and on two, at 16 connections (see `concurrent_creates`)
        if "postgresql" in backends:
            pg = backends["postgresql"]
            pg_two, pg_two_token = start_aftersales(urls["postgresql"], log, workers=2, name="aftersales postgresql x2")
            servers.append(pg_two)
            creates = {"creates x1": (pg.server, pg.token), "creates x2": (pg_two, pg_two_token)}
        floor_rows: list[dict[str, Any]] = []
        scaling: dict[str, list[dict[str, Any]]] = {
            name: [] for name in ("floor x1", "floor x2", "query x1", "query x2", *creates)
        }
        for number in range(1, args.rounds + 1):
            progress(f"round {number} of {args.rounds}")
            floor_row = await measure(floor, None, "floor (no-op tool)", sqlite.operations["query_ticket"], args)
            floor_rows.append(floor_row)
            for backend in backends.values():
                await backend.round(floor_row["rps"], args)
            # One worker then two, back to back, so the machine's other load changes as little as possible between.
            query = sqlite.operations["query_ticket"]
            for name, server, token in (("floor x1", floor, None), ("floor x2", floor2, None)):
                scaling[name].append(await measure(server, token, "floor (no-op tool)", query, args))
            for name, server, token in (("query x1", sqlite.server, sqlite.token), ("query x2", two, sqlite.token)):
                scaling[name].append(await measure(server, token, "query_ticket", query, args))
            for name, (server, token) in creates.items():  # every create takes a line no earlier one took
                create = backends["postgresql"].operations["create_ticket"]
                with lock_waits(urls["postgresql"]) as waits:
                    row = await measure(server, token, "create_ticket", create, args)
                scaling[name].append({**row, "lock_wait_share": waits.share, "lock_waits": waits.events})
            pinned_floor_row = await measure(floor_pinned, None, "floor (no-op tool)", query, args)
            pinned_rows["floor"].append(pinned_floor_row)
            for name in PINNED:  # sqlite's own operations: creates go on taking lines no earlier create took
                row = await measure(pinned, pinned_token, name, sqlite.operations[name], args)
                pinned_rows[name].append(row)
                pinned_ratios[name].append(row["rps"] / pinned_floor_row["rps"])
        result["throughput"] = {"floor": median_row(floor_rows), **sqlite.summary(args.connections)}
        result["pinned"] = {
            "floor": median_row(pinned_rows["floor"]),
            "scenarios": [
                {**median_row(pinned_rows[name]), "ratio_to_floor": median(pinned_ratios[name])} for name in PINNED
            ],
        }
        if "postgresql" in backends:
            result["postgresql"] = {"floor": median_row(floor_rows), **backends["postgresql"].summary(args.connections)}
            # One process is CPU-bound at 16 connections whether or not creates share a lock, so 16 / 1 cannot tell;
            # a second worker doubles the CPU, and only creates serialised behind one lock would fail to use it.
            result["postgresql"]["concurrent_creates"].update(
                workers_scaling=median(
                    [b["rps"] / a["rps"] for b, a in zip(scaling["creates x2"], scaling["creates x1"], strict=True)]
                ),
                rps_one_worker=median_row(scaling["creates x1"])["rps"],
                rps_two_workers=median_row(scaling["creates x2"])["rps"],
                # The direct measure: how much of the busy sessions' time went to waiting on a lock.
                lock_wait_share_one_worker=median([row["lock_wait_share"] for row in scaling["creates x1"]]),
                lock_wait_share_two_workers=median([row["lock_wait_share"] for row in scaling["creates x2"]]),
            )
        result["workers_scaling"] = median(
            [two_["rps"] / one["rps"] for two_, one in zip(scaling["query x2"], scaling["query x1"], strict=True)]
        )
        result["workers"] = {
            "workers_scaling": result["workers_scaling"],
            "floor_scaling": median(
                [two_["rps"] / one["rps"] for two_, one in zip(scaling["floor x2"], scaling["floor x1"], strict=True)]
            ),
            **{name: median_row(rows) for name, rows in scaling.items()},
        }
        result["wrk"] = cross_check(floor, sqlite, args)
        progress(f"memory: {args.leak_seconds:.0f} s at full load on SQLite, RSS sampled every 5 s ...")
        result["memory"] = {
            "leak_check": await extras.leak_check(
                sqlite.server, sqlite.token, sqlite.operations["mixed"], args.leak_seconds
            ),
            "peak_rss_mb": {server.name: server.peak_rss_mb() for server in servers},
        }
    finally:
        for server in servers:
            server.stop()


def cross_check(floor: Server, sqlite: Backend, args: argparse.Namespace) -> dict[str, Any]:
    """wrk against the floor, the query and the peer's query, one after another (skipped when wrk is absent)."""
    progress("wrk cross-check (1 thread, 16 connections) ...")
    ticket = sqlite.inputs.tickets[0]
    seconds = max(2.0, args.duration)
    floor_figures = extras.wrk(floor, None, ticket, seconds)
    if floor_figures is None:
        print("    wrk is not installed (Debian package wrk): cross-check skipped", flush=True)
        return {"skipped": "wrk is not installed"}
    query_figures = extras.wrk(sqlite.server, sqlite.token, ticket, seconds)
    peer_figures = extras.wrk(sqlite.peer, None, ticket, seconds)
    assert query_figures is not None and peer_figures is not None
    ratio = round(query_figures["rps"] / floor_figures["rps"], 3)
    to_peer = round(query_figures["rps"] / peer_figures["rps"], 3) if peer_figures["rps"] else None
    print(
        f"    wrk: floor {floor_figures['rps']} rps, query {query_figures['rps']} rps, ratio {ratio}; the FastMCP "
        f"peer's query {peer_figures['rps']} rps, the query {to_peer} of it",
        flush=True,
    )
    return {
        "floor": floor_figures,
        "query_ticket": query_figures,
        "ratio": ratio,
        "fastmcp_query_ticket": peer_figures,
        "ratio_to_fastmcp": to_peer,
        "seconds": seconds,
    }


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="One short round of everything (about 2 minutes).")
    parser.add_argument("--rounds", type=int, help="Rounds of the scenarios; figures are medians (default 3).")
    parser.add_argument("--connections", type=int, default=16, help="Concurrent keep-alive connections.")
    parser.add_argument("--duration", type=float, help="Measured seconds per scenario (default 3).")
    parser.add_argument("--warmup", type=float, help="Unmeasured seconds before each scenario (default 1).")
    parser.add_argument("--sizes", type=int, nargs="+", help="Tickets per scale world (default 1k 100k 1M).")
    parser.add_argument("--leak-seconds", type=float, help="Full-load seconds of the memory check (default 60).")
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only (no PostgreSQL server started).")
    parser.add_argument("--skip", nargs="+", default=[], choices=["throughput", "scale", "worlds", "eval"])
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "bench" / "results" / "latest.json")
    args = parser.parse_args()
    quick = args.quick
    defaults = {
        "rounds": 1 if quick else 3,
        "duration": 2.0 if quick else 3.0,
        "warmup": 0.5 if quick else 1.0,
        "sizes": [1000] if quick else [1000, 100_000, 1_000_000],
        "leak_seconds": 15.0 if quick else 60.0,
    }
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    return args


def main() -> int:
    args = parse()
    WORK.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {
        "when": now().isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.platform(terse=True)}",
        "settings": {
            "connections": args.connections,
            "duration_s": args.duration,
            "warmup_s": args.warmup,
            "rounds": args.rounds,
            "quick": args.quick,
            "protocol": "2026-07-28",
            "database": "SQLite (embedded default) and PostgreSQL (a throwaway local server)",
            "peer": f"bench/peer.py on FastMCP {version('fastmcp')}, mcp {version('mcp')}",
        },
    }
    with worlds.postgres_server(enabled=not args.no_postgres) as postgres:
        if "throughput" not in args.skip:
            asyncio.run(throughput(args, postgres, result))
        if "worlds" not in args.skip:
            result["worlds"] = {}
            for backend, server in (("sqlite", None), ("postgresql", postgres)):
                if backend == "sqlite" or server:
                    progress(f"worlds on {backend}: fork and reset, {args.rounds * 5 + 5} each ...")
                    result["worlds"][backend] = worlds.fork_and_reset_p50(backend, args.rounds * 5 + 5, server)
    if "scale" not in args.skip:
        result["scale"] = asyncio.run(scale(args))
    if "eval" not in args.skip:
        count, trials = (10, 2) if args.quick else (40, 4)
        for mode in evaluation.MODES:
            progress(f"eval ({mode}): {count} tasks x {trials} trials of the scripted agent, --parallel 8 ...")
            result["eval" if mode == "brief" else f"eval_{mode}"] = evaluation.run(count, trials, mode=mode)
    result["elapsed_s"] = round(time.monotonic() - STARTED, 1)
    result["targets"] = report.targets(result)
    result["targets_issue_29"] = report.stack_targets(result)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    report.show(result)
    print(f"\nfull results: {args.out} (run took {result['elapsed_s']} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

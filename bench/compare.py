"""Two checkouts (or settings) side by side: server CPU per call, throughput, p50 and p99, rounds interleaved.

bench.cpu compares variants by their environment, but its servers start with the bench's own checkout as their
working directory, which `python -m` puts first on sys.path, so PYTHONPATH cannot swap the code. Here each variant
names the checkout its server runs from (and any settings), so the code before and after a change meet in the same
rounds on the same world:

    .venv/bin/python -m bench.compare query_ticket estimate_refund create_ticket mixed \\
        --variant before=/tmp/base --variant after=. --rounds 5 [--postgres]

`mixed` is query, estimate and create in turn on every connection (16 by default), the load whose p99 a change of
where the database work runs must not raise. A variant is NAME=CHECKOUT[,SETTING=VALUE...].
"""

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.load import Session, drive
from bench.profile import WORK
from bench.scenarios import build_world, inputs_from, kept_world, postgres_url, scenarios
from bench.servers import UNLIMITED, Server, free_port, run_in_work, start_floor
from bench.worlds import postgres_server


def variant(spec: str) -> tuple[str, Path, dict[str, str]]:
    """NAME=CHECKOUT[,KEY=VALUE...] as (name, checkout, environment)."""
    name, _, rest = spec.partition("=")
    checkout, *pairs = rest.split(",")
    return name, Path(checkout or ".").resolve(), dict(pair.split("=", 1) for pair in pairs if pair)


def start(checkout: Path, database_url: str, environment: dict[str, str]) -> tuple[Server, str]:
    """`aftersales serve` run from `checkout` (its code first on sys.path), and a caller token."""
    env = {
        **os.environ,
        **UNLIMITED,
        **environment,
        "PYTHONPATH": str(checkout),
        "AFTERSALES_DATABASE_URL": database_url,
        "AFTERSALES_DATA_DIR": str(WORK / "data"),
        "AFTERSALES_LOG_LEVEL": "WARNING",
    }
    port = free_port()
    with (WORK / "servers.log").open("ab") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "aftersales", "serve", "--port", str(port)],
            cwd=checkout,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=sink,
        )
    server = Server(checkout.name, process, port)
    server.wait_ready("/readyz")
    issued = [sys.executable, "-m", "aftersales", "token", "issue", "--caller", "bench-bot"]
    token = subprocess.run(issued, cwd=checkout, env=env, check=True, capture_output=True, text=True).stdout
    return server, token.strip()


def mixed(operations: dict[str, Any]) -> Any:
    """Query, estimate and create in turn."""
    turn = (operations["query_ticket"], operations["estimate_refund"], operations["create_ticket"])

    async def operation(session: Session, n: int) -> None:
        await turn[n % 3](session, n)

    return operation


async def measure(server: Server, token: str | None, operation: Any, args: argparse.Namespace) -> dict[str, float]:
    """Server CPU ms a call, calls a second, p50 and p99 ms of one scenario against one running server."""
    await drive(server.url, token, operation, args.connections, 0, args.warmup)
    before = server.cpu_seconds()
    outcome = await drive(server.url, token, operation, args.connections, 0, args.duration)
    spent, latencies = server.cpu_seconds() - before, sorted(outcome.latencies)
    if outcome.failures or not latencies:
        raise RuntimeError(f"{outcome.failures} failures: {outcome.errors}")
    return {
        "cpu": 1000 * spent / len(latencies),
        "rps": len(latencies) / outcome.wall,
        "p50": 1000 * latencies[len(latencies) // 2],
        "p99": 1000 * latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))],
    }


async def run(args: argparse.Namespace) -> None:
    with contextlib.ExitStack() as stack:
        if args.postgres:
            pg = stack.enter_context(postgres_server())
            assert pg is not None
            url = postgres_url(pg, "bench_compare")
            print("building a world on PostgreSQL ...", flush=True)
            build_world(url, 10000, 30000, 10000, progress=False)
        else:
            url = kept_world(WORK / "compare.db", rebuild=True)  # creates use up lines: a fresh world each run
        operations = scenarios(inputs_from(url))
        operations["mixed"] = mixed(operations)
        figures: dict[str, list[dict[str, float]]] = {}
        for number in range(args.rounds):
            floor = start_floor(WORK / "servers.log")
            try:
                figures.setdefault("floor", []).append(await measure(floor, None, operations["query_ticket"], args))
            finally:
                floor.stop()
            for name, checkout, environment in map(variant, args.variant):
                server, token = start(checkout, url, environment)
                try:
                    for scenario in args.scenarios:
                        found = await measure(server, token, operations[scenario], args)
                        figures.setdefault(f"{name} {scenario}", []).append(found)
                finally:
                    server.stop()
            print(f"round {number + 1} done at {time.strftime('%H:%M:%S')}", flush=True)
        floor_rps = statistics.median(f["rps"] for f in figures["floor"])
        print(f"{'':32s} {'cpu ms':>8s} {'rps':>8s} {'x floor':>8s} {'p50 ms':>8s} {'p99 ms':>8s}   (medians)")
        for name, rounds in figures.items():
            med = {key: statistics.median(f[key] for f in rounds) for key in ("cpu", "rps", "p50", "p99")}
            print(
                f"{name:32s} {med['cpu']:8.3f} {med['rps']:8.1f} {med['rps'] / floor_rps:8.3f} "
                f"{med['p50']:8.2f} {med['p99']:8.2f}   p99 by round: " + " ".join(f"{f['p99']:.1f}" for f in rounds)
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenarios", nargs="*", default=["query_ticket", "estimate_refund", "create_ticket"])
    parser.add_argument("--variant", action="append", required=True, help="NAME=CHECKOUT[,KEY=VALUE...]; repeat.")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=6.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--postgres", action="store_true", help="Serve a world on PostgreSQL, not SQLite.")
    return run_in_work(run, parser.parse_args())


if __name__ == "__main__":
    raise SystemExit(main())

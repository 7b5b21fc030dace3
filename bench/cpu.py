"""Server CPU per call: a figure that holds on a noisy, shared machine where throughput jumps.

Starts the floor and `aftersales serve` on the profile's world, drives each scenario for a fixed time and divides
the server's CPU time (utime + stime from /proc, all its processes) by the calls it answered. Rounds run the floor
and every variant back to back; the medians are printed, with the throughput ratio to the floor beside them. A
variant is a name and the environment its server starts with, to compare settings side by side (the servers run
this checkout's code whatever PYTHONPATH says, since `python -m` puts it first: compare two checkouts with
bench.compare):

    .venv/bin/python -m bench.cpu query_ticket --variant off= --variant on=AFTERSALES_SQLITE_LOOP_READ_STEPS=10000

`--ablate` adds variants that take parts of a call out (bench.ablated), to show what each part costs:

    .venv/bin/python -m bench.cpu query_ticket --ablate --rounds 5

`--postgres` serves a world generated on PostgreSQL instead (AFTERSALES_BENCH_POSTGRES_URL, or a throwaway server),
to compare what only PostgreSQL does, such as the rate buckets every replica shares:

    .venv/bin/python -m bench.cpu query_ticket --postgres --variant shared= --variant local=AFTERSALES_RATE_SHARED=false
"""

import argparse
import contextlib
import os
import statistics
from typing import Any

from bench.ablated import ABLATE
from bench.load import drive
from bench.profile import WORK
from bench.scenarios import build_world, inputs_from, kept_world, postgres_url, scenarios
from bench.servers import Server, run_in_work, start_aftersales, start_floor
from bench.worlds import postgres_server


async def measure(server: Server, token: str | None, operation: Any, args: argparse.Namespace) -> tuple[float, float]:
    """(server CPU ms per answered call, calls a second) of one scenario against one running server."""
    await drive(server.url, token, operation, args.connections, 0, args.warmup)
    before = server.cpu_seconds()
    outcome = await drive(server.url, token, operation, args.connections, 0, args.duration)
    spent = server.cpu_seconds() - before
    calls = len(outcome.latencies)
    if outcome.failures or not calls:
        raise RuntimeError(f"{outcome.failures} failures: {outcome.errors}")
    return 1000 * spent / calls, calls / outcome.wall


# What --ablate compares with the whole server: bench.ablated's ablations, alone and together.
ABLATIONS = {
    "no-middlewares": "middlewares",
    "no-read": "read",
    "no-read-no-middlewares": "read+middlewares",
    "executor-hop": "executor",
    "no-hop": "hop",
}


def variants(specs: list[str], ablate: bool = False) -> dict[str, dict[str, str]]:
    """NAME=KEY=VALUE,KEY=VALUE (or NAME=) specs as environments by name, then the ablations when asked."""
    found: dict[str, dict[str, str]] = {}
    for spec in specs or ["here="]:
        name, _, rest = spec.partition("=")
        found[name] = dict(pair.split("=", 1) for pair in rest.split(",") if pair)
    if ablate:
        found.update({name: {ABLATE: ablations} for name, ablations in ABLATIONS.items()})
    return found


async def run(args: argparse.Namespace) -> None:
    with contextlib.ExitStack() as stack:
        if args.postgres:
            server = stack.enter_context(postgres_server())
            assert server is not None  # enabled, so a URL
            url = postgres_url(server, "bench_cpu")
            print("building a world on PostgreSQL ...", flush=True)
            build_world(url, 10000, 30000, 10000, progress=False)
        else:
            url = kept_world(WORK / "profile.db")
        await rounds(args, url)


async def rounds(args: argparse.Namespace, url: str) -> None:
    operations = scenarios(inputs_from(url))
    servers = variants(args.variant, args.ablate)
    figures: dict[str, list[tuple[float, float]]] = {}
    for _ in range(args.rounds):
        floor = start_floor(WORK / "servers.log")
        try:
            figures.setdefault("floor", []).append(await measure(floor, None, operations["query_ticket"], args))
        finally:
            floor.stop()
        for variant, environment in servers.items():
            saved = dict(os.environ)
            os.environ.update(environment)
            try:
                module = "bench.ablated" if ABLATE in environment else "aftersales"
                server, token = start_aftersales(url, WORK / "servers.log", module=module)
            finally:
                os.environ.clear()
                os.environ.update(saved)
            try:
                for name in args.scenarios:
                    figures.setdefault(f"{variant} {name}", []).append(
                        await measure(server, token, operations[name], args)
                    )
            finally:
                server.stop()
        print("  ".join(f"{name} {ms:.3f}ms {rps:.0f}rps" for name, [*_, (ms, rps)] in figures.items()), flush=True)
    floor_rps = statistics.median(rps for _, rps in figures["floor"])
    for name, rounds in figures.items():
        cpu = statistics.median(ms for ms, _ in rounds)
        rps = statistics.median(r for _, r in rounds)
        print(f"{name:40s} cpu {cpu:.3f} ms/call  {rps:7.1f} rps  ratio {rps / floor_rps:.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenarios", nargs="*", default=["query_ticket", "estimate_refund"])
    parser.add_argument("--variant", action="append", default=[], help="NAME=ENV=VALUE,...; repeat to compare.")
    parser.add_argument("--ablate", action="store_true", help="Add bench.ablated's variants (see its docstring).")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=8.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--postgres", action="store_true", help="Serve a world on PostgreSQL, not SQLite.")
    args = parser.parse_args()
    return run_in_work(run, args)


if __name__ == "__main__":
    raise SystemExit(main())

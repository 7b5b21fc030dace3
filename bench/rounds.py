"""Time the two-round input_required create round by round, beside a query and a one-round create.

One keep-alive connection, calls strictly one after another (no queueing), against `aftersales serve` on a
generated world of its own (var/bench/rounds.db, as large as bench.profile's). Each batch runs `--calls` of each
operation; the figures are the median over the batches of each batch's p50 latency in ms, and of the server's CPU
ms per call (utime + stime from /proc, which resists the noise of a shared machine better than wall time). "two
rounds" adds the two rounds' figures.

    .venv/bin/python -m bench.rounds --batches 5 --calls 100
"""

import argparse
import json
import statistics
import time
import uuid
from typing import Any

import aiohttp

from bench.load import Session
from bench.run import WORK
from bench.scenarios import answers, inputs_from, kept_world
from bench.servers import Server, run_in_work, start_aftersales


async def batch(server: Server, session: Session, inputs: Any, calls: int, offset: int) -> dict[str, list[float]]:
    """One batch: `calls` queries, first rounds, second rounds, one-round creates, each as its own phase.

    Per call: the wall time in ms; per phase: the server's CPU ms per call (/proc counts in clock ticks, too coarse
    for one call). Second rounds run after all first rounds, so each phase's CPU is its own.
    """
    figures: dict[str, list[float]] = {}

    async def phase(name: str, calls: list[Any]) -> list[Any]:
        results, cpu = [], server.cpu_seconds()
        for call in calls:
            began = time.perf_counter()
            results.append(await call())
            figures.setdefault(name, []).append(1000 * (time.perf_counter() - began))
        figures[name + " cpu"] = [1000 * (server.cpu_seconds() - cpu) / len(calls)]
        return results

    def query(ticket: str) -> Any:
        return lambda: session.call("after_sales_query_ticket", {"ticket_id": ticket})

    def create(arguments: dict[str, Any], **extra: Any) -> Any:
        return lambda: session.call("after_sales_create_ticket", arguments, **extra)

    def arguments(line: tuple[str, int], kind: str) -> dict[str, Any]:
        return {
            "order_id": line[0],
            "line_no": line[1],
            "kind": kind,
            "reason_code": "defective",
            "description": "Arrived broken.",
            "idempotency_key": f"bench-{uuid.uuid4()}",
        }

    await phase("query", [query(inputs.tickets[(offset + n) % len(inputs.tickets)]) for n in range(calls)])
    twos = [arguments(inputs.returnable.pop(), "return_and_refund") for _ in range(calls)]
    firsts = await phase("round 1", [create(a) for a in twos])
    extras = [{"inputResponses": answers(f), "requestState": f["requestState"]} for f in firsts]
    dones = await phase("round 2", [create(a, **e) for a, e in zip(twos, extras, strict=True)])
    if any(done["structuredContent"]["outcome"] != "created" for done in dones):
        raise RuntimeError("not created")
    await phase("create (one round)", [create(arguments(inputs.repairable.pop(), "repair")) for _ in range(calls)])
    return figures


async def run(args: argparse.Namespace) -> None:
    url = kept_world(WORK / "rounds.db", args.rebuild)
    inputs = inputs_from(url)
    needed = (args.batches + 1) * args.calls
    if len(inputs.returnable) < needed or len(inputs.repairable) < needed:
        raise SystemExit("the world has too few unused lines left: run again with --rebuild")
    server, token = start_aftersales(url, WORK / "servers.log")
    medians: dict[str, list[float]] = {}
    try:
        connector = aiohttp.TCPConnector(limit=1, force_close=False)
        async with aiohttp.ClientSession(connector=connector) as http:
            session = Session(http, server.url, token)
            await batch(server, session, inputs, args.calls, 0)  # warm-up
            for number in range(args.batches):
                figures = await batch(server, session, inputs, args.calls, (number + 1) * args.calls)
                for name, values in figures.items():
                    medians.setdefault(name, []).append(statistics.median(values))
    finally:
        server.stop()
    summary = {name: round(statistics.median(values), 3) for name, values in medians.items()}
    summary["two rounds"] = round(summary["round 1"] + summary["round 2"], 3)
    summary["two rounds cpu"] = round(summary["round 1 cpu"] + summary["round 2 cpu"], 3)
    summary["two rounds / query"] = round(summary["two rounds"] / summary["query"], 2)
    summary["two rounds cpu / query cpu"] = round(summary["two rounds cpu"] / summary["query cpu"], 2)
    print(json.dumps(summary, indent=2))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--rebuild", action="store_true", help="Generate the world again (creates use up lines).")
    args = parser.parse_args()
    return run_in_work(run, args)


if __name__ == "__main__":
    raise SystemExit(main())

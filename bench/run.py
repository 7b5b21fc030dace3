"""`make bench`: throughput and latency against the SDK's floor, and query cost as the data grows.

Both servers run as separate uvicorn processes, the way they are deployed; the load generator (this process)
speaks raw JSON-RPC on protocol 2026-07-28 over keep-alive connections. Ratios are taken within one run, because
these machines are shared and noisy.
"""

import argparse
import asyncio
import json
import os
import platform
import random
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from datetime import time as midnight
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select, text

from aftersales.clock import as_utc, now
from aftersales.domain.calls import percentile
from aftersales.seeding import bulk
from aftersales.storage import migrate
from aftersales.storage.database import make_engine
from aftersales.storage.models import Category, Order, OrderLine, Product, Ticket
from bench.load import Outcome, Session, drive

REPO_ROOT = Path(__file__).resolve().parent.parent
WORK = REPO_ROOT / "var" / "bench"
TARGETS = {"query_ticket": 0.75, "estimate_refund": 0.6, "create_ticket": 0.4}
UNLIMITED = {
    f"AFTERSALES_RATE_{kind}_{what}": "100000000" for kind in ("READ", "WRITE") for what in ("PER_MINUTE", "BURST")
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    """A server process we started, with its resource figures read from /proc."""

    name: str
    process: subprocess.Popen[bytes]
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def wait_ready(self, path: str) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}")
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}{path}", timeout=1).status_code < 500:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} did not start")

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def peak_rss_mb(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)


def start_aftersales(database: Path, log: Path) -> tuple[Server, str]:
    """`aftersales serve` on a free port against `database`; return it and a caller token."""
    env = {
        **os.environ,
        **UNLIMITED,
        "AFTERSALES_DATABASE_URL": f"sqlite:///{database}",
        "AFTERSALES_DATA_DIR": str(WORK / "data"),
        "AFTERSALES_LOG_LEVEL": "WARNING",
    }
    port = free_port()
    with log.open("ab") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "aftersales", "serve", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=sink,
        )
    server = Server("aftersales", process, port)
    server.wait_ready("/readyz")
    token = subprocess.run(
        [sys.executable, "-m", "aftersales", "token", "issue", "--caller", "bench-bot"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return server, token


def start_floor(log: Path) -> Server:
    port = free_port()
    with log.open("ab") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "bench.floor", "--port", str(port)],
            cwd=REPO_ROOT,
            stdout=subprocess.DEVNULL,
            stderr=sink,
        )
    server = Server("floor", process, port)
    server.wait_ready("/mcp")
    return server


def build_world(database: Path, customers: int, orders: int, tickets: int, progress: bool) -> None:
    """A migrated database holding a generated world anchored at today."""
    database.parent.mkdir(parents=True, exist_ok=True)
    for stale in database.parent.glob(database.name + "*"):
        stale.unlink()
    engine = make_engine(f"sqlite:///{database}")
    migrate.upgrade(engine)
    anchor = datetime.combine(now().date(), midnight(), UTC)
    bulk.generate_into(engine, customers, orders, tickets, progress=progress, anchor=anchor)
    engine.dispose()


@dataclass
class Inputs:
    """What the scenarios call with: ticket numbers, and order lines by what they allow."""

    tickets: list[str]
    returnable: list[tuple[str, int]]  # delivered inside the return window, no ticket, not paid by gift card
    repairable: list[tuple[str, int]]  # inside the warranty, no ticket


def inputs_from(database: Path, limit: int = 20000) -> Inputs:
    """Sample scenario inputs from the database (deterministically)."""
    engine = make_engine(f"sqlite:///{database}")
    today = now()
    with engine.connect() as connection:
        tickets = list(connection.scalars(select(Ticket.id).order_by(Ticket.id).limit(limit)))
        taken = {(o, n) for o, n in connection.execute(text("SELECT order_id, line_no FROM tickets"))}
        policy = select(
            Product.sku, Product.returnable, Product.repairable, Product.warranty_months, Category.return_window_days
        ).join(Category, Category.code == Product.category_code)
        products = {sku: facts for sku, *facts in connection.execute(policy)}
        rows = connection.execute(
            select(Order.id, Order.delivered_at, Order.payment_method, OrderLine.line_no, OrderLine.sku)
            .join(OrderLine, OrderLine.order_id == Order.id)
            .where(Order.status == "delivered")
        ).all()
    engine.dispose()
    returnable, repairable = [], []
    for order_id, delivered_at, payment, line_no, sku in rows:
        if (order_id, line_no) in taken:
            continue
        can_return, can_repair, warranty, window = products[sku]
        age = (today - as_utc(delivered_at)).days
        if can_return and age < window - 1 and payment != "gift_card":
            returnable.append((order_id, line_no))
        elif can_repair and age < 30 * warranty - 2:
            repairable.append((order_id, line_no))
    shuffle = random.Random(7)
    shuffle.shuffle(returnable)
    shuffle.shuffle(repairable)
    return Inputs(tickets, returnable, repairable)


def answers(first: dict[str, Any]) -> dict[str, Any]:
    """Accept every question of an input_required round (store credit; yes)."""
    responses = {}
    for key, request in first["inputRequests"].items():
        fields = request["params"]["requestedSchema"]["properties"]
        content = {"refund_method": "store_credit"} if "refund_method" in fields else {"confirm": True}
        responses[key] = {"action": "accept", "content": content}
    return responses


def scenarios(inputs: Inputs) -> dict[str, Any]:
    """The operations, each taking (session, counter)."""
    estimate_lines, create_lines, two_round_lines = inputs.returnable[::2], inputs.repairable, inputs.returnable[1::2]

    async def query(session: Session, n: int) -> None:
        await session.call("after_sales_query_ticket", {"ticket_id": inputs.tickets[n % len(inputs.tickets)]})

    async def estimate(session: Session, n: int) -> None:
        order_id, line_no = estimate_lines[n % len(estimate_lines)]
        await session.call(
            "after_sales_estimate_refund", {"order_id": order_id, "line_no": line_no, "reason_code": "defective"}
        )

    async def create(session: Session, n: int) -> None:
        order_id, line_no = create_lines.pop()
        result = await session.call(
            "after_sales_create_ticket",
            {
                "order_id": order_id,
                "line_no": line_no,
                "kind": "repair",
                "reason_code": "defective",
                "description": "Stopped working after a month.",
                "idempotency_key": f"bench-{uuid.uuid4()}",
            },
        )
        if result["structuredContent"]["outcome"] != "created":
            raise RuntimeError("not created")

    async def two_round(session: Session, n: int) -> None:
        order_id, line_no = two_round_lines.pop()
        arguments = {
            "order_id": order_id,
            "line_no": line_no,
            "kind": "return_and_refund",
            "reason_code": "defective",
            "description": "Arrived broken.",
            "idempotency_key": f"bench-{uuid.uuid4()}",
        }
        first = await session.call("after_sales_create_ticket", arguments)
        if first.get("resultType") != "input_required":
            raise RuntimeError("no input_required round")
        done = await session.call(
            "after_sales_create_ticket", arguments, inputResponses=answers(first), requestState=first["requestState"]
        )
        if done["structuredContent"]["outcome"] != "created":
            raise RuntimeError("not created")

    return {
        "query_ticket": query,
        "estimate_refund": estimate,
        "create_ticket": create,
        "input_required_create": two_round,
    }


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
        "server_peak_rss_mb": round(server.peak_rss_mb(), 1),
        "server_cpu_share": round(cpu / outcome.wall, 2),
        "loadgen_cpu_share": round(outcome.client_cpu / outcome.wall, 2),
    }


async def measure(
    server: Server,
    token: str | None,
    name: str,
    operation: Any,
    args: argparse.Namespace,
    connections: int | None = None,
) -> dict[str, Any]:
    cpu = server.cpu_seconds()
    outcome = await drive(server.url, token, operation, connections or args.connections, args.warmup, args.duration)
    row = figures(name, outcome, server, server.cpu_seconds() - cpu)
    print(
        f"  {name:<22} {row['rps']:>8} rps  p50 {row['p50_ms']:>7} ms  p95 {row['p95_ms']:>7} ms  "
        f"failures {row['failures']}",
        flush=True,
    )
    return row


async def throughput(args: argparse.Namespace) -> dict[str, Any]:
    """Scenario runs against the floor and aftersales, in one run."""
    database = WORK / "throughput.db"
    print(f"building the throughput world in {database} ...", flush=True)
    build_world(database, 20000, 60000, 20000, progress=False)
    inputs = inputs_from(database)
    print(
        f"inputs: {len(inputs.tickets)} tickets, {len(inputs.returnable)} returnable lines, "
        f"{len(inputs.repairable)} repairable lines",
        flush=True,
    )
    log = WORK / "servers.log"
    floor = start_floor(log)
    server, token = start_aftersales(database, log)
    operations = scenarios(inputs)
    rows = []
    try:
        print("measuring (each: warm-up, then a measured window):", flush=True)
        floor_row = await measure(floor, None, "floor (no-op tool)", operations["query_ticket"], args)
        for name, operation in operations.items():
            rows.append(await measure(server, token, name, operation, args))
        # Latency without queueing: one connection, so a create does not wait behind other writers.
        print("unloaded latency (one connection):", flush=True)
        alone = {
            name: await measure(server, token, name, operations[name], args, 1)
            for name in ("query_ticket", "input_required_create")
        }
    finally:
        server.stop()
        floor.stop()
    for row in rows:
        row["ratio_to_floor"] = round(row["rps"] / floor_row["rps"], 3)
    ratio = round(alone["input_required_create"]["p50_ms"] / alone["query_ticket"]["p50_ms"], 3)
    return {"floor": floor_row, "scenarios": rows, "unloaded": alone, "two_round_to_query_p50": ratio}


async def scale(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Query and estimate latency at 1,000, 100,000 and 1,000,000 tickets."""
    results = []
    stamp = now().strftime("%Y%m%d")
    for tickets in args.sizes:
        database = WORK / f"scale-{tickets}-{stamp}.db"
        for old in WORK.glob(f"scale-{tickets}-*.db*"):
            if not old.name.startswith(database.name):
                old.unlink()
        if not database.exists():
            started = time.monotonic()
            print(f"generating {tickets:,} tickets into {database} ...", flush=True)
            build_world(database, max(1000, tickets // 10), max(2000, int(tickets * 0.65)), tickets, progress=True)
            print(f"  generated in {time.monotonic() - started:.0f}s", flush=True)
        inputs = inputs_from(database)
        operations = scenarios(inputs)
        server, token = start_aftersales(database, WORK / "servers.log")
        try:
            print(f"{tickets:,} tickets:", flush=True)
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


def report(result: dict[str, Any]) -> None:
    """The table, the targets, and where the figures came from."""
    print("\n=== aftersales benchmark ===")
    print(f"machine: {result['machine']}")
    if "throughput" in result:
        floor = result["throughput"]["floor"]
        print(
            f"\n{'scenario':<24}{'rps':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'x floor':>9}{'peak MB':>9}"
            f"{'srv cpu':>9}{'gen cpu':>9}"
        )
        for row in [floor, *result["throughput"]["scenarios"]]:
            print(
                f"{row['scenario']:<24}{row['rps']:>9}{row['p50_ms']:>9}{row['p95_ms']:>9}{row['p99_ms']:>9}"
                f"{row.get('ratio_to_floor', 1.0):>9}{row['server_peak_rss_mb']:>9}{row['server_cpu_share']:>9}"
                f"{row['loadgen_cpu_share']:>9}"
            )
        print("\ntargets:")
        rows = {r["scenario"]: r for r in result["throughput"]["scenarios"]}
        for name, target in TARGETS.items():
            ratio = rows[name]["ratio_to_floor"]
            print(
                f"  {name} throughput / floor = {ratio} (target >= {target}) {'met' if ratio >= target else 'MISSED'}"
            )
        alone = result["throughput"]["unloaded"]
        latency = result["throughput"]["two_round_to_query_p50"]
        print(
            f"  two-round create p50 / query p50, one connection = {alone['input_required_create']['p50_ms']} / "
            f"{alone['query_ticket']['p50_ms']} ms = {latency} (target <= 2.5) {'met' if latency <= 2.5 else 'MISSED'}"
        )
    if "scale" in result:
        print(f"\n{'tickets':>10}{'query p50 ms':>14}{'ratio':>8}{'estimate p50 ms':>17}{'ratio':>8}")
        for row in result["scale"]:
            print(
                f"{row['tickets']:>10,}{row['query']['p50_ms']:>14}{row['query_p50_ratio']:>8}"
                f"{row['estimate']['p50_ms']:>17}{row['estimate_p50_ratio']:>8}"
            )
        last = result["scale"][-1]["query_p50_ratio"]
        print(
            f"  query p50 at {result['scale'][-1]['tickets']:,} / at {result['scale'][0]['tickets']:,} = {last} "
            f"(target <= 1.2) {'met' if last <= 1.2 else 'MISSED'}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--connections", type=int, default=16, help="Concurrent keep-alive connections.")
    parser.add_argument("--duration", type=float, default=8.0, help="Measured seconds per scenario.")
    parser.add_argument("--warmup", type=float, default=2.0, help="Unmeasured seconds before each scenario.")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 100_000, 1_000_000])
    parser.add_argument("--only", choices=["throughput", "scale"], help="Run one part only.")
    parser.add_argument("--out", type=Path, default=WORK / "results.json")
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    result: dict[str, Any] = {
        "when": now().isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.platform(terse=True)}",
        "settings": {
            "connections": args.connections,
            "duration_s": args.duration,
            "warmup_s": args.warmup,
            "protocol": "2026-07-28",
            "database": "SQLite (embedded default)",
        },
    }
    if args.only in (None, "throughput"):
        result["throughput"] = asyncio.run(throughput(args))
    if args.only in (None, "scale"):
        result["scale"] = asyncio.run(scale(args))
    result["elapsed_s"] = round(time.monotonic() - started, 1)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    report(result)
    print(f"\nfull results: {args.out} (run took {result['elapsed_s']}s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

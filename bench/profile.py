"""Profile one scenario of `make bench` with py-spy: where the server's time goes under load.

Starts `aftersales serve` on a generated world exactly as bench.run does, drives one scenario, samples the server
with `py-spy record --format raw` (idle threads left out) and prints where the samples fall: the frames holding
the most samples inclusively and by themselves, and a fixed set of layers (SDK transport, middlewares, tool,
SQLAlchemy, driver, pydantic).

    .venv/bin/python -m bench.profile query_ticket --duration 15
"""

import argparse
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from bench.load import drive
from bench.run import WORK
from bench.scenarios import inputs_from, kept_world, scenarios
from bench.servers import run_in_work, start_aftersales, start_floor

# Substrings of a raw stack frame ("function (file:line)") that mark a layer; a sample counts once per layer.
LAYERS = {
    "uvicorn/h11 (HTTP)": ("uvicorn/protocols", "h11/"),
    "starlette/SDK transport": ("streamable_http", "starlette/"),
    "SDK dispatch (lowlevel server)": ("mcp/server/lowlevel", "mcp/shared/"),
    "middleware: BearerAuth": ("web/auth.py",),
    "middleware: CallTracer": ("mcp/tracing.py",),
    "middleware: CallRecorder": ("mcp/recorder.py",),
    "middleware: RateLimiter": ("mcp/ratelimit.py",),
    "middleware: ArgumentGate": ("mcp/arguments.py",),
    "tool function (in thread)": ("mcp/tools/",),
    "audit writer thread": ("storage/audit.py",),
    "services": ("aftersales/services/",),
    "domain": ("aftersales/domain/",),
    "storage (repositories, uow)": ("aftersales/storage/",),
    "SQLAlchemy": ("sqlalchemy/",),
    "sqlite3/psycopg driver (execute)": ("sqlite3/", "psycopg/"),
    "pydantic": ("pydantic/", "pydantic_core"),
    "anyio to_thread": ("anyio/to_thread", "anyio/_backends/_asyncio.py:run_sync"),
    "json": ("json/",),
}


def _marks(frame: str, marks: tuple[str, ...]) -> bool:
    return any(mark in frame for mark in marks)


def summarise(raw: Path, top: int) -> None:
    """Print inclusive layer shares and the hottest frames of a py-spy raw (collapsed) profile."""
    total, layers, inclusive, own, innermost = 0, Counter[str](), Counter[str](), Counter[str](), Counter[str]()
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        n = int(count)
        total += n
        frames = stack.split(";")
        for name, marks in LAYERS.items():
            if any(mark in frame for frame in frames for mark in marks):
                layers[name] += n
        owner = next((name for frame in reversed(frames) for name, marks in LAYERS.items() if _marks(frame, marks)), "")
        innermost[owner or "other (stdlib, asyncio loop)"] += n
        for frame in set(frames):
            inclusive[frame] += n
        own[frames[-1]] += n
    if not total:
        print("no samples")
        return
    print(f"\n{total} samples (active threads only)\n\nlayers (inclusive):")
    for name, n in layers.most_common():
        print(f"  {100 * n / total:5.1f}%  {name}")
    print("\nlayers (innermost: each sample counted once, for the deepest layer on its stack):")
    for name, n in innermost.most_common():
        print(f"  {100 * n / total:5.1f}%  {name}")
    print("\nframes (inclusive):")
    for frame, n in inclusive.most_common(top):
        print(f"  {100 * n / total:5.1f}%  {frame[:150]}")
    print("\nframes (self):")
    for frame, n in own.most_common(top):
        print(f"  {100 * n / total:5.1f}%  {frame[:150]}")


async def profile(args: argparse.Namespace) -> None:
    url = kept_world(WORK / "profile.db", args.rebuild)
    operation = scenarios(inputs_from(url))[args.scenario]
    if args.floor:
        server, token = start_floor(WORK / "servers.log"), None
    else:
        server, token = start_aftersales(url, WORK / "servers.log")
    raw = args.out or WORK / f"profile-{'floor' if args.floor else args.scenario}.txt"
    try:
        # Warm up before sampling, so start-up work (first imports, compiled schemas) stays out of the profile.
        await drive(server.url, token, operation, args.connections, 0, args.warmup)
        command = [str(Path(sys.executable).parent / "py-spy"), "record", "-r", str(args.rate), "--format", "raw"]
        command += ["-d", str(int(args.duration)), "-o", str(raw), "--pid", str(server.process.pid)]
        spy = subprocess.Popen(
            command + (["--gil"] if args.gil else []) + (["--native"] if args.native else []),
            stdout=subprocess.DEVNULL,
        )
        time.sleep(0.5)
        outcome = await drive(server.url, token, operation, args.connections, 0, args.duration)
        spy.wait(60)
    finally:
        server.stop()
    print(f"{args.scenario}: {len(outcome.latencies) / outcome.wall:.1f} rps, {outcome.failures} failures")
    summarise(raw, args.top)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    names = ["query_ticket", "estimate_refund", "create_ticket", "input_required_create"]
    parser.add_argument("scenario", choices=names)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--duration", type=float, default=15.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--rate", type=int, default=200, help="py-spy samples a second.")
    parser.add_argument("--gil", action="store_true", help="Sample only the thread holding the GIL.")
    parser.add_argument("--native", action="store_true", help="Sample C frames too (SQLite, the drivers).")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--rebuild", action="store_true", help="Generate the world again (creates use up lines).")
    parser.add_argument("--floor", action="store_true", help="Profile the floor server instead (query scenario).")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--summarise", type=Path, help="Only summarise an existing raw profile.")
    args = parser.parse_args()
    if args.summarise:
        summarise(args.summarise, args.top)
        return 0
    return run_in_work(profile, args)


if __name__ == "__main__":
    raise SystemExit(main())

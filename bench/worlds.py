"""`make bench-worlds`: how fast worlds are forked, reset and created from a large generated database.

Targets (issue #13): fork of a world made from the baseline <= 50 ms median on SQLite and <= 500 ms on
PostgreSQL; reset the same; a world from a 100,000-ticket generated database, once its template exists, <= 1 s.
PostgreSQL is AFTERSALES_BENCH_POSTGRES_URL (a role with CREATEDB), or a throwaway server like the tests'.

The results carry a `worlds` object, `{backend: {"fork_ms_p50", "reset_ms_p50", "large_create_ms_p50"}}` with
the project's one percentile (nearest rank, domain.calls.percentile). `make bench` measures the fork and reset part
(`fork_and_reset_p50`) into results/latest.json's `worlds`, in the same shape without the large create.
"""

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url

from aftersales.clock import now
from aftersales.domain.calls import percentile
from aftersales.seeding import bulk
from aftersales.settings import Settings
from aftersales.storage import migrate
from aftersales.storage.database import make_engine
from aftersales.worlds.service import Worlds

REPO_ROOT = Path(__file__).resolve().parent.parent
WORK = REPO_ROOT / "var" / "bench"
AT = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
TARGETS = {"sqlite": {"fork": 50, "reset": 50}, "postgresql": {"fork": 500, "reset": 500}}
LARGE_TARGET_MS = 1000


def timed(action: Callable[[], Any], repeat: int, between: Callable[[Any], None] = lambda _: None) -> list[float]:
    """Milliseconds of each of `repeat` runs of `action`; `between` tidies up after each, untimed."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        made = action()
        times.append((time.perf_counter() - started) * 1000)
        between(made)
    return times


def summary(times: list[float]) -> dict[str, float]:
    return {
        "median_ms": round(statistics.median(times), 1),
        "p50_ms": round(percentile(times, 0.5), 1),
        "min_ms": round(min(times), 1),
        "runs": len(times),
    }


def worlds_summary(backends: dict[str, dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per backend, the p50 of each measured operation: what results/latest.json keeps under `worlds`."""
    return {
        backend: {
            "fork_ms_p50": row["fork_baseline"]["p50_ms"],
            "reset_ms_p50": row["reset_baseline"]["p50_ms"],
            "large_create_ms_p50": row["large_create"]["p50_ms"],
        }
        for backend, row in backends.items()
    }


@contextmanager
def postgres_server(enabled: bool = True) -> Iterator[str | None]:
    """AFTERSALES_BENCH_POSTGRES_URL, or a throwaway server started the way the tests start theirs (None: off)."""
    configured = os.environ.get("AFTERSALES_BENCH_POSTGRES_URL")
    if configured or not enabled:
        yield configured if enabled else None
        return
    from tests.support import postgres

    server = postgres.start()
    try:
        yield server.url
    finally:
        server.stop()


@contextmanager
def control(backend: str, folder: Path, server: str | None) -> Iterator[Worlds]:
    """A migrated control database and a worlds service on it."""
    if backend == "sqlite":
        url = f"sqlite:///{folder / 'control.db'}"
    else:
        assert server is not None
        admin = make_engine(server, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(text("DROP DATABASE IF EXISTS bench_worlds_control WITH (FORCE)"))
            connection.execute(text("CREATE DATABASE bench_worlds_control"))
        admin.dispose()
        url = make_url(server).set(database="bench_worlds_control").render_as_string(hide_password=False)
    engine = make_engine(url)
    migrate.upgrade(engine)
    settings = Settings(database_url=url, data_dir=folder, worlds_dir=folder / "worlds", worlds_prefix="bench")
    worlds = Worlds(settings, engine, ["b" * 40])
    try:
        yield worlds
    finally:
        for world in worlds.registry.all():
            worlds.drop(world.id)
        worlds.prune_templates()
        worlds.close()
        engine.dispose()


def generated(backend: str, tickets: int, server: str | None) -> str:
    """A database holding `tickets` generated tickets (dates as `seed generate` writes them), made once."""
    customers, orders = max(1000, tickets // 10), max(2000, int(tickets * 0.65))
    if backend == "sqlite":
        path = WORK / f"worlds-source-{tickets}.db"
        url = f"sqlite:///{path}"
        if path.exists():
            return str(path)
    else:
        assert server is not None
        name = f"bench_worlds_source_{tickets}"
        url = make_url(server).set(database=name).render_as_string(hide_password=False)
        admin = make_engine(server, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            if connection.scalar(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}):
                admin.dispose()
                return url
            connection.execute(text(f"CREATE DATABASE {name}"))
        admin.dispose()
    print(f"  generating {tickets:,} tickets into {backend} once ...", flush=True)
    engine = make_engine(url)
    migrate.upgrade(engine)
    bulk.generate_into(engine, customers, orders, tickets, progress=False)
    engine.dispose()
    return url if backend == "postgresql" else url.removeprefix("sqlite:///")


def fork_and_reset(worlds: Worlds, repeat: int) -> tuple[list[float], list[float]]:
    """Milliseconds of `repeat` forks of a baseline world, and of `repeat` resets of one fork."""
    base = worlds.create(at=AT)
    fork = timed(lambda: worlds.fork(base.id), repeat, lambda world: worlds.drop(world.id))
    target = worlds.fork(base.id)
    return fork, timed(lambda: worlds.reset(target.id), repeat)


def fork_and_reset_p50(backend: str, repeat: int, server: str | None) -> dict[str, float]:
    """`{"fork_ms_p50", "reset_ms_p50"}` on one backend: the part of this bench `make bench` runs."""
    with (
        tempfile.TemporaryDirectory(prefix="aftersales-bench-worlds-") as folder,
        control(backend, Path(folder), server) as worlds,
    ):
        fork, reset = fork_and_reset(worlds, repeat)
    return {"fork_ms_p50": summary(fork)["p50_ms"], "reset_ms_p50": summary(reset)["p50_ms"], "runs": repeat}


def measure(backend: str, args: argparse.Namespace, server: str | None) -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory(prefix="aftersales-bench-worlds-") as folder,
        control(backend, Path(folder), server) as worlds,
    ):
        drop = lambda world: worlds.drop(world.id)  # noqa: E731
        fork, reset = fork_and_reset(worlds, args.repeat)
        source = generated(backend, args.tickets, server)
        started = time.perf_counter()
        first = worlds.create(source=source, at=AT, operator=True)
        template_ms = (time.perf_counter() - started) * 1000
        size = worlds.size(first)
        large = timed(lambda: worlds.create(source=source, at=AT, operator=True), args.large_repeat, drop)
    return {
        "fork_baseline": summary(fork),
        "reset_baseline": summary(reset),
        "large_template_build_ms": round(template_ms, 1),
        "large_world_bytes": size,
        "large_create": summary(large),
    }


def report(result: dict[str, Any], tickets: int) -> None:
    print(f"\n{'backend':<12}{'fork p50 ms':>13}{'reset p50 ms':>14}{f'{tickets:,}-ticket create p50 ms':>30}")
    for backend, row in result["backends"].items():
        targets = TARGETS[backend]
        marks = [
            row["fork_baseline"]["median_ms"] <= targets["fork"],
            row["reset_baseline"]["median_ms"] <= targets["reset"],
            row["large_create"]["median_ms"] <= LARGE_TARGET_MS,
        ]
        print(
            f"{backend:<12}{row['fork_baseline']['median_ms']:>13}{row['reset_baseline']['median_ms']:>14}"
            f"{row['large_create']['median_ms']:>30}   targets {targets['fork']}/{targets['reset']}/{LARGE_TARGET_MS}"
            f" ms: {'met' if all(marks) else 'MISSED'}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", choices=["sqlite", "postgresql"], help="Measure one backend only.")
    parser.add_argument("--repeat", type=int, default=20, help="Forks and resets measured per backend.")
    parser.add_argument("--large-repeat", type=int, default=5, help="Worlds made from the large database.")
    parser.add_argument("--tickets", type=int, default=100_000, help="Tickets in the large generated database.")
    parser.add_argument("--out", type=Path, default=WORK / "worlds.json")
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {
        "when": now().isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "settings": {"repeat": args.repeat, "large_repeat": args.large_repeat, "tickets": args.tickets},
        "backends": {},
    }
    if args.only in (None, "sqlite"):
        print("sqlite ...", flush=True)
        result["backends"]["sqlite"] = measure("sqlite", args, None)
    if args.only in (None, "postgresql"):
        with postgres_server() as server:
            assert server is not None
            print("postgresql ...", flush=True)
            result["backends"]["postgresql"] = measure("postgresql", args, server)
    result["worlds"] = worlds_summary(result["backends"])
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    report(result, args.tickets)
    print(f"\nfull results: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

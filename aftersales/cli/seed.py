"""`aftersales seed load | reset | generate`."""

import argparse
import time
from pathlib import Path

from aftersales.bootstrap import baseline_path, is_empty, read_baseline
from aftersales.clock import now
from aftersales.seeding import bulk, dataset, generator, loader, readme
from aftersales.settings import Settings
from aftersales.storage import migrate
from aftersales.storage.database import make_engine


def add(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register the seed commands."""
    seed = commands.add_parser("seed", help="Seed data: load, reset, generate.")
    actions = seed.add_subparsers(dest="action", required=True, metavar="ACTION")
    load_parser = actions.add_parser("load", help="Insert the baseline rows that are missing (safe to repeat).")
    load_parser.add_argument("--if-empty", action="store_true", help="Only load into a database with no customers.")
    load_parser.set_defaults(run=load)
    actions.add_parser("reset", help="Delete all rows and load the baseline again.").set_defaults(run=reset)
    gen = actions.add_parser(
        "generate", help="Generate a deterministic world into an empty database (or, with --out, a dataset file)."
    )
    gen.add_argument("--customers", type=int, default=300, help="Customers (default 300).")
    gen.add_argument("--orders", type=int, default=1500, help="Orders (default 1500).")
    gen.add_argument("--tickets", type=int, default=400, help="Tickets (default 400).")
    gen.add_argument("--seed", type=int, default=generator.DEFAULT_SEED, help="Random seed (same seed, same world).")
    target = gen.add_mutually_exclusive_group()
    target.add_argument("--out", type=Path, help="Write the story-shaped world to this dataset file instead.")
    target.add_argument("--baseline", action="store_true", help="Rewrite seed/baseline.json and its story table.")
    gen.add_argument("--quiet", action="store_true", help="No progress bar.")
    gen.set_defaults(run=generate)


def load(args: argparse.Namespace, settings: Settings) -> int:
    """Migrate, then insert missing baseline rows (with --if-empty: only into an empty database)."""
    engine = make_engine(settings.resolved_database_url)
    migrate.upgrade(engine)
    if args.if_empty and not is_empty(engine):
        engine.dispose()
        print("seed load: the database already holds data; nothing loaded (--if-empty)")
        return 0
    report = loader.load(engine, read_baseline(settings.seed_dir), now())
    engine.dispose()
    _print(report, "loaded")
    return 0


def reset(_: argparse.Namespace, settings: Settings) -> int:
    """Migrate, delete every row, and load the baseline."""
    engine = make_engine(settings.resolved_database_url)
    migrate.upgrade(engine)
    loader.clear(engine)
    report = loader.load(engine, read_baseline(settings.seed_dir), now())
    engine.dispose()
    _print(report, "reset to baseline")
    return 0


def generate(args: argparse.Namespace, settings: Settings) -> int:
    """Generate a world: into the database in batches, or as a dataset file."""
    if args.out or args.baseline:
        out = args.out or baseline_path(settings.seed_dir)
        world = generator.generate(args.customers, args.orders, args.tickets, seed=args.seed)
        dataset.write(world, out)
        if args.baseline:
            readme.update(settings.seed_dir / "README.md", world)
        print(f"wrote {out}: " + ", ".join(f"{len(rows)} {name}" for name, rows in world.tables.items()))
        return 0
    engine = make_engine(settings.resolved_database_url)
    migrate.upgrade(engine)
    if not is_empty(engine):
        engine.dispose()
        raise ValueError("the database already holds data; generate into an empty one (a new AFTERSALES_DATABASE_URL)")
    started = time.monotonic()
    written = bulk.generate_into(engine, args.customers, args.orders, args.tickets, args.seed, not args.quiet)
    engine.dispose()
    rows = ", ".join(f"{count:,} {name}" for name, count in written.items())
    print(f"generated in {time.monotonic() - started:.1f}s: {rows}")
    return 0


def _print(report: loader.LoadReport, verb: str) -> None:
    """Say how many rows went in, per table."""
    rows = ", ".join(f"{count} {name}" for name, count in report.inserted.items())
    print(f"seed {verb}: {rows} (dates shifted by {report.shift_days} days so the baseline is current)")

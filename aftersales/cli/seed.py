"""`aftersales seed load | reset | generate`."""

import argparse
from pathlib import Path

from aftersales.bootstrap import baseline_path, is_empty
from aftersales.clock import now
from aftersales.seeding import dataset, generator, loader, readme
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
    gen = actions.add_parser("generate", help="Write a deterministic dataset file.")
    gen.add_argument("--customers", type=int, default=300)
    gen.add_argument("--orders", type=int, default=1500)
    gen.add_argument("--tickets", type=int, default=400)
    gen.add_argument("--seed", type=int, default=generator.DEFAULT_SEED)
    gen.add_argument("--out", type=Path, help="Output file (default: the baseline in the seed dir).")
    gen.set_defaults(run=generate)


def load(args: argparse.Namespace, settings: Settings) -> int:
    """Migrate, then insert missing baseline rows (with --if-empty: only into an empty database)."""
    engine = make_engine(settings.resolved_database_url)
    migrate.upgrade(engine)
    if args.if_empty and not is_empty(engine):
        engine.dispose()
        print("seed load: the database already holds data; nothing loaded (--if-empty)")
        return 0
    report = loader.load(engine, dataset.read(baseline_path(settings.seed_dir)), now())
    engine.dispose()
    _print(report, "loaded")
    return 0


def reset(_: argparse.Namespace, settings: Settings) -> int:
    """Migrate, delete every row, and load the baseline."""
    engine = make_engine(settings.resolved_database_url)
    migrate.upgrade(engine)
    loader.clear(engine)
    report = loader.load(engine, dataset.read(baseline_path(settings.seed_dir)), now())
    engine.dispose()
    _print(report, "reset to baseline")
    return 0


def generate(args: argparse.Namespace, settings: Settings) -> int:
    """Generate a world and write it as a dataset file."""
    out = args.out or baseline_path(settings.seed_dir)
    world = generator.generate(args.customers, args.orders, args.tickets, seed=args.seed)
    dataset.write(world, out)
    if args.out is None:
        readme.update(settings.seed_dir / "README.md", world)
    print(f"wrote {out}: " + ", ".join(f"{len(rows)} {name}" for name, rows in world.tables.items()))
    return 0


def _print(report: loader.LoadReport, verb: str) -> None:
    """Say how many rows went in, per table."""
    rows = ", ".join(f"{count} {name}" for name, count in report.inserted.items())
    print(f"seed {verb}: {rows} (dates shifted by {report.shift_days} days so the baseline is current)")

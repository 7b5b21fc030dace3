"""`aftersales seed load | reset | generate`."""

import argparse
import sys
import time
from pathlib import Path

from aftersales.bootstrap import baseline_path, is_empty, read_baseline
from aftersales.cli.console import shown_url
from aftersales.cli.db import database
from aftersales.clock import now
from aftersales.seeding import bulk, dataset, generator, loader, readme
from aftersales.settings import Settings
from aftersales.storage import migrate


def add(seed: argparse.ArgumentParser) -> None:
    """Register the seed commands."""
    actions = seed.add_subparsers(dest="action", required=True, metavar="ACTION")
    load_parser = actions.add_parser("load", help="Insert the baseline rows that are missing (safe to repeat).")
    load_parser.add_argument("--if-empty", action="store_true", help="Only load into a database with no customers.")
    load_parser.set_defaults(run=load)
    reset_parser = actions.add_parser("reset", help="Delete every row and load the baseline again (asks first).")
    reset_parser.add_argument("--yes", action="store_true", help="Do not ask; needed when no terminal is attached.")
    reset_parser.set_defaults(run=reset)
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
    baseline = read_baseline(settings.seed_dir)  # a missing seed folder stops us before the database is touched
    with database(settings) as engine:
        migrate.upgrade(engine)
        if args.if_empty and not is_empty(engine):
            print("seed load: the database already holds data; nothing loaded (--if-empty)")
            return 0
        report = loader.load(engine, baseline, now())
    _print(report, "loaded")
    return 0


def reset(args: argparse.Namespace, settings: Settings) -> int:
    """Migrate, delete every row, and load the baseline (after a person confirmed, or with --yes)."""
    if not args.yes and not confirmed(settings):
        print("seed reset: nothing changed")
        return 1
    baseline = read_baseline(settings.seed_dir)
    with database(settings) as engine:
        migrate.upgrade(engine)
        loader.clear(engine)
        report = loader.load(engine, baseline, now())
    _print(report, "reset to baseline")
    return 0


def confirmed(settings: Settings) -> bool:
    """Ask on the terminal before deleting every row; without a terminal, refuse (scripts pass --yes)."""
    target = shown_url(settings.resolved_database_url)
    if not sys.stdin.isatty():
        raise ValueError(f"seed reset deletes every row in {target}; no terminal to confirm on, so pass --yes")
    answer = input(f"seed reset deletes every row in {target} and loads the baseline again. Continue? [y/N] ")
    return answer.strip().lower() in ("y", "yes")


def generate(args: argparse.Namespace, settings: Settings) -> int:
    """Generate a world: into the database in batches, or as a dataset file."""
    if args.out or args.baseline:
        out = args.out or baseline_path(settings.seed_dir)
        world = generator.generate(args.customers, args.orders, args.tickets, args.seed, settings.thresholds)
        dataset.write(world, out)
        if args.baseline:
            readme.update(settings.seed_dir / "README.md", world)
        print(f"wrote {out}: " + ", ".join(f"{len(rows)} {name}" for name, rows in world.tables.items()))
        return 0
    with database(settings) as engine:
        migrate.upgrade(engine)
        if not is_empty(engine):
            raise ValueError(
                "the database already holds data; generate into an empty one (a new AFTERSALES_DATABASE_URL)"
            )
        started = time.monotonic()
        written = bulk.generate_into(
            engine, args.customers, args.orders, args.tickets, args.seed, not args.quiet, thresholds=settings.thresholds
        )
    rows = ", ".join(f"{count:,} {name}" for name, count in written.items())
    print(f"generated in {time.monotonic() - started:.1f}s: {rows}")
    return 0


def _print(report: loader.LoadReport, verb: str) -> None:
    """Say how many rows went in, per table."""
    rows = ", ".join(f"{count} {name}" for name, count in report.inserted.items())
    print(f"seed {verb}: {rows} (dates shifted by {report.shift_days} days so the baseline is current)")

"""`aftersales stats`: tool health from the audit, and tickets by the channel they came from."""

import argparse
import json

from aftersales.app import App
from aftersales.clock import iso, now
from aftersales.durations import parse_duration
from aftersales.services.stats import channel_stats, tool_stats
from aftersales.settings import Settings

COLUMNS = ("tool", "calls", "parameter_hit_rate", "failure_rate", "retry_rate", "p50_ms", "p95_ms")
CHANNEL_COLUMNS = ("channel", "opened", "cancelled")


def add(stats: argparse.ArgumentParser) -> None:
    """Register the stats command."""
    stats.add_argument("--since", default="1h", help="How far back to look: 30m, 1h, 7d (default 1h).")
    stats.add_argument("--json", action="store_true", help="Print JSON instead of a table.")
    stats.set_defaults(run=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Print the figures for the period."""
    since = now() - parse_duration(args.since)
    app = App(settings)
    try:
        figures = [entry.as_dict() for entry in tool_stats(app.uow(), since)]
        channels = [entry.as_dict() for entry in channel_stats(app.uow(), since)]
    finally:
        app.close()
    if args.json:
        print(json.dumps({"since": iso(since), "tools": figures, "tickets_by_channel": channels}, indent=2))
        return 0
    print(f"tool calls since {iso(since)}")
    _table(COLUMNS, figures)
    if not figures:
        print("(no calls recorded)")
    print(f"\ntickets by channel since {iso(since)}")
    _table(CHANNEL_COLUMNS, channels)
    return 0


def _table(columns: tuple[str, ...], rows: list[dict[str, object]]) -> None:
    """Print `rows` under `columns`, each column as wide as its widest cell."""
    widths = [max([len(column), *(len(str(row[column])) for row in rows)]) for column in columns]
    print("  ".join(column.ljust(width) for column, width in zip(columns, widths, strict=True)))
    for row in rows:
        print("  ".join(str(row[column]).ljust(width) for column, width in zip(columns, widths, strict=True)))

"""`aftersales tools descriptions`: export today's tool texts as a description set, or check a set file."""

import argparse
import sys
from pathlib import Path

from aftersales.settings import Settings


def add(tools: argparse.ArgumentParser) -> None:
    """Register the tools commands."""
    actions = tools.add_subparsers(dest="action", required=True, metavar="ACTION")
    texts = actions.add_parser("descriptions", help="The tools' titles and descriptions as a file a team edits.")
    how = texts.add_mutually_exclusive_group(required=True)
    how.add_argument(
        "--export",
        nargs="?",
        const="-",
        metavar="PATH",
        help="Write today's texts (under these settings) as a description set, to PATH or stdout.",
    )
    how.add_argument("--check", type=Path, metavar="FILE", help="Check a set; print its name and the hash it serves.")
    texts.set_defaults(run=run_descriptions)


def run_descriptions(args: argparse.Namespace, settings: Settings) -> int:
    """Export or check; a set that cannot be served is a ValueError the entry point prints (exit 2)."""
    from aftersales.mcp.described import definitions  # the SDK and every tool: imported only for this command
    from aftersales.mcp.descriptions import export, load

    today = definitions(settings)
    if args.check is not None:
        shown = load(args.check, today).completed(today).shown()
        print(f"{args.check}: set {shown['name']} can be served; its texts hash to sha256 {shown['sha256']}")
        return 0
    text = export(today)
    if args.export == "-":
        sys.stdout.write(text)
    else:
        Path(args.export).write_text(text, encoding="utf-8")
        print(f"wrote the tool descriptions to {args.export}", file=sys.stderr)
    return 0

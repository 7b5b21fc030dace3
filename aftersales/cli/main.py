"""Entry point of the `aftersales` command."""

import argparse
import sys
from collections.abc import Sequence

from aftersales.cli import db, seed, serve, stats, token
from aftersales.settings import Settings


def parser() -> argparse.ArgumentParser:
    """The full argument parser, one sub-command module each."""
    root = argparse.ArgumentParser(prog="aftersales", description="After-sales MCP tool server.")
    commands = root.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve.add(commands)
    db.add(commands)
    seed.add(commands)
    token.add(commands)
    stats.add(commands)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments and run the chosen command; return the exit status."""
    args = parser().parse_args(argv)
    try:
        return int(args.run(args, Settings()) or 0)
    except KeyboardInterrupt:
        return 130
    except ValueError as error:  # bad settings or arguments the parser could not catch
        print(f"aftersales: {error}", file=sys.stderr)
        return 2

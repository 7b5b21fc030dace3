"""Entry point of the `aftersales` command."""

import argparse
import sys
from collections.abc import Sequence

from pydantic import ValidationError

from aftersales import __version__
from aftersales.cli import db, seed, serve, stats, token, world
from aftersales.cli.failures import DATABASE_ERRORS, StartupError, database_problem, settings_problem
from aftersales.settings import Settings


def parser() -> argparse.ArgumentParser:
    """The full argument parser, one sub-command module each."""
    root = argparse.ArgumentParser(prog="aftersales", description="After-sales MCP tool server.")
    root.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = root.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve.add(commands)
    db.add(commands)
    seed.add(commands)
    token.add(commands)
    stats.add(commands)
    world.add(commands)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments and run the chosen command; return the exit status.

    Problems a person fixes by changing a setting or starting a service are one line on stderr and exit 2.
    """
    args = parser().parse_args(argv)
    try:
        settings = Settings()
    except ValidationError as error:
        return _fail(settings_problem(error))
    try:
        return int(args.run(args, settings) or 0)
    except KeyboardInterrupt:
        return 130
    except DATABASE_ERRORS as error:
        return _fail(database_problem(error, settings.resolved_database_url))
    except (StartupError, ValueError) as error:  # bad settings or arguments the parser could not catch
        return _fail(str(error))


def _fail(message: str) -> int:
    """Print one line on stderr; the exit status for a problem in the setup."""
    print(f"aftersales: {message}", file=sys.stderr)
    return 2

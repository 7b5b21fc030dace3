"""Entry point of the `aftersales` command.

aftersales serve [--host H] [--port P] [--workers N] [--pin-cpus] [--stdio]   serve MCP (migrating, seeding when empty)
aftersales db upgrade | current                      migrate to head; print the database's revision
aftersales seed load [--if-empty] | reset [--yes]    insert the baseline's missing rows; reload it from scratch
aftersales seed generate [--out F | --baseline]      a deterministic world: into the database, a file, or seed/
aftersales token issue --caller C [--scopes] [--ttl] print a signed caller token
aftersales stats [--since 1h] [--json]               per-tool health from the audit
aftersales demo [--host H] [--port P]                the elicitation demo page, on throwaway data of its own
aftersales tasks list | check [--tasks T] [--json]   agent tasks; replay their reference solutions on fresh worlds
aftersales eval --agent CMD [--trials k] [--parallel n] [--out DIR]   score an agent on the tasks (pass^k)
aftersales world create | fork | reset | drop | list worlds: isolated, time-pinned datasets for testing agents
aftersales world snapshot | hash | diff | clock | trace | prune    inspect, move and tidy worlds
"""

import argparse
import sys
from collections.abc import Sequence

from pydantic import ValidationError

from aftersales import __version__
from aftersales.cli import db, demo, seed, serve, stats, tasks, token, world
from aftersales.cli import eval as evaluation
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
    tasks.add(commands)
    evaluation.add(commands)
    demo.add(commands)
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

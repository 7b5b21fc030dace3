"""Entry point of the `aftersales` command.

aftersales serve [--host H] [--port P] [--workers N] [--pin-cpus] [--stdio]   serve MCP (migrating, seeding when empty)
aftersales db upgrade | current                      migrate to head; print the database's revision
aftersales seed load [--if-empty] | reset [--yes]    insert the baseline's missing rows; reload it from scratch
aftersales seed generate [--out F | --baseline]      a deterministic world: into the database, a file, or seed/
aftersales token issue --caller C [--scopes] [--ttl] print a signed caller token
aftersales stats [--since 1h] [--json]               per-tool health from the audit, tickets by channel
aftersales demo [--host H] [--port P]                the elicitation demo page, on throwaway data of its own
aftersales tasks list | lint | check [--tasks T]     agent tasks; what they name; replay their references on worlds
aftersales eval --agent CMD [--trials k] [--parallel n] [--out DIR]   score an agent on the tasks (pass^k)
aftersales eval compare BASE_DIR NEW_DIR [--threshold T]   two runs task by task; exit 1 when a task got worse
aftersales trace view FILE [--html OUT]              a trajectory file of any run, as `world trace` shows it
aftersales tools descriptions --export [PATH] | --check FILE   the tools' texts as a set to edit; check a set
aftersales world create | fork | reset | drop | list worlds: isolated, time-pinned datasets for testing agents
aftersales world snapshot | hash | diff | clock | trace | prune    inspect, move and tidy worlds
"""

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from aftersales import __version__

# Each command's module and its line in `aftersales --help`. A module is imported only when its command is given:
# the server, the database layer and the SDK take seconds to import, and `--version` or `world fork` need few of them.
COMMANDS = {
    "serve": "Migrate, seed when empty, and serve the MCP endpoint.",
    "db": "Database schema: upgrade, current.",
    "seed": "Seed data: load, reset, generate.",
    "token": "Caller tokens.",
    "stats": "Per-tool calls, hit, failure and retry rates, and latency; tickets by channel.",
    "world": "Isolated, time-pinned, resettable datasets for testing agents.",
    "tasks": "Agent tasks: list them, lint what they name, check their reference solutions.",
    "eval": "Run an MCP agent on every task's trials and score them (pass^k); compare two runs.",
    "trace": "Show a trajectory file of any run (the trace of a trial's world).",
    "tools": "The tools' titles and descriptions: export them as a set to edit, check a set.",
    "demo": "Serve the elicitation demo page (both protocol revisions side by side).",
}


def parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser: every command listed, with the arguments of the one `argv` names (of all without argv)."""
    root = argparse.ArgumentParser(prog="aftersales", description="After-sales MCP tool server.")
    root.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = root.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # The root takes no option with a value, so the first word that is not an option is the command.
    given = None if argv is None else next((word for word in argv if not word.startswith("-")), "")
    for name, text in COMMANDS.items():
        command = commands.add_parser(name, help=text)
        if given is None or given == name:
            importlib.import_module(f"aftersales.cli.{name}").add(command)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments and run the chosen command; return the exit status.

    Problems a person fixes by changing a setting or starting a service are one line on stderr and exit 2.
    """
    words = sys.argv[1:] if argv is None else list(argv)
    args = parser(words).parse_args(words)
    # Imported once a command is sure to run: parsing (and --help, --version) needs neither pydantic nor SQLAlchemy.
    from pydantic import ValidationError

    from aftersales.cli.failures import DATABASE_ERRORS, StartupError, database_problem, settings_problem
    from aftersales.settings import Settings

    if not getattr(args, "worker_fds", None):  # a worker of `serve --workers N`: its parent warned already
        _warn_unknown()
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


_warned: set[str] = set()  # variables warned about in this process (tests run main many times in one)


def _warn_unknown() -> None:
    """Say once, on stderr, which AFTERSALES_* variables are ignored, and the setting each probably meant."""
    from aftersales.settings import unknown_variables

    for name, close in unknown_variables(os.environ).items():
        if name in _warned:
            continue
        _warned.add(name)
        guess = (
            f"; did you mean {close}?" if close else " (the Settings table of docs/reference.md lists every setting)."
        )
        print(f"aftersales: warning: {name} is not a setting and is ignored{guess}", file=sys.stderr)


def _fail(message: str) -> int:
    """Print one line on stderr; the exit status for a problem in the setup."""
    print(f"aftersales: {message}", file=sys.stderr)
    return 2

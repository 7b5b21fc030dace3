"""`aftersales tasks list|lint|check`: the shipped (or given) tasks, what they name that does not exist, and a replay of
each reference solution."""

import argparse
import json
import sys

from aftersales.cli.harness import add_keep, harness
from aftersales.settings import Settings
from aftersales.testing.check import MODES, CheckResult, check_tasks, explain
from aftersales.testing.lint import Catalogue
from aftersales.testing.loader import checked, lint, load
from aftersales.testing.scoring import expects_change

TASKS_HELP = "A folder of task files, one file, or comma-separated shipped task ids (default: every shipped task)."


def add(tasks: argparse.ArgumentParser) -> None:
    """Register the tasks commands."""
    actions = tasks.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="The tasks, one line each.")
    linting = actions.add_parser(
        "lint", help="Check what the tasks name (stories, tools, tables, columns, saved fields); exit 1 on a problem."
    )
    check = actions.add_parser("check", help="Replay each reference solution on a fresh world; exit 1 if any miss.")
    for parser in (listing, linting, check):
        parser.add_argument("--tasks", help=TASKS_HELP)
        parser.add_argument("--json", action="store_true", help="Print JSON.")
    check.add_argument(
        "--database-url",
        help="Control database for the worlds (a PostgreSQL URL puts every world on that server); default a "
        "private SQLite folder.",
    )
    check.add_argument("--parallel", type=int, default=1, help="Tasks checked at once (default 1).")
    check.add_argument(
        "--mode",
        choices=["brief", "conversation", "both"],
        default="both",
        help="Replay each reference as the brief-mode agent makes its calls, as a conversation with the task's "
        "scripted customer (say steps are the agent's turns), or both (default).",
    )
    add_keep(check)
    listing.set_defaults(run=run_list)
    linting.set_defaults(run=run_lint)
    check.set_defaults(run=run_check)


def run_list(args: argparse.Namespace, settings: Settings) -> int:
    """Print the tasks."""
    tasks = load(args.tasks)
    if args.json:
        print(
            json.dumps([{"id": t.id, "title": t.title, "change": expects_change(t.expected)} for t in tasks], indent=2)
        )
        return 0
    for task in tasks:
        print(f"{task.id:44} {'change   ' if expects_change(task.expected) else 'no change'}  {task.title}")
    return 0


def run_lint(args: argparse.Namespace, settings: Settings) -> int:
    """Print every problem of every task file, one line each; exit 1 when there is any."""
    tasks, problems = lint(args.tasks, Catalogue.of(settings))
    if args.json:
        print(json.dumps({"tasks": len(tasks), "problems": problems}, indent=2))
    else:
        print("\n".join(problems) if problems else f"{len(tasks)} task(s): no problems")
    return 1 if problems else 0


def run_check(args: argparse.Namespace, settings: Settings) -> int:
    """Check every task; exit 1 when any reference misses its expected outcome or breaks a rule.

    Tasks with a problem `tasks lint` finds are refused before any world is made (a TaskError: exit 2).
    """
    tasks = checked(args.tasks, Catalogue.of(settings))

    def done(result: CheckResult) -> None:
        if not args.json:
            print(f"{'pass' if result.passed else 'FAIL'}  {result.task.id:44} {result.mode}", flush=True)
            if not result.passed:
                print(explain(result), flush=True)

    with harness(args.database_url, args.keep) as host:
        modes = MODES if args.mode == "both" else (args.mode,)
        results = check_tasks(host, tasks, args.parallel, done, modes)
    failed = [result for result in results if not result.passed]
    if args.json:
        print(json.dumps({"tasks": [result.as_dict() for result in results], "failed": len(failed)}, indent=2))
    else:
        print(
            f"{len(results) - len(failed)} of {len(results)} reference replays ({' and '.join(modes)} mode) reach "
            "their expected outcome"
        )
    if failed:
        print(
            f"aftersales: {len(failed)} replay(s) fail their own reference: "
            + ", ".join(f"{r.task.id} ({r.mode})" for r in failed),
            file=sys.stderr,
        )
    return 1 if failed else 0

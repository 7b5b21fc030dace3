"""`aftersales eval --agent CMD`: every task's trials on fresh worlds, a table, report.json and .html, junit.xml,
trajectories; `aftersales eval compare BASE_DIR NEW_DIR`: two runs' reports compared, task by task."""

import argparse
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from aftersales.cli.harness import add_keep, harness
from aftersales.cli.tasks import TASKS_HELP
from aftersales.settings import Settings
from aftersales.testing import compare, report_html
from aftersales.testing import report as reports
from aftersales.testing.conversation.engines import check_engine
from aftersales.testing.lint import Catalogue
from aftersales.testing.llm import ModelChoice, preflight
from aftersales.testing.loader import checked, of_split, runnable
from aftersales.testing.runner import Agent, TrialResult, run_eval
from aftersales.testing.tasks import SPLITS


def add(run: argparse.ArgumentParser) -> None:
    """Register the eval command."""
    run.add_argument("--agent", help='The agent command, run by the shell per trial: "python bot.py" (required).')
    run.add_argument("--tasks", help=TASKS_HELP)
    run.add_argument(
        "--split",
        choices=SPLITS,
        help="Run only the tasks of this split: dev (tune on these) or held_out (check on these); default both.",
    )
    run.add_argument("--trials", type=int, default=1, help="Trials per task, k (default 1).")
    run.add_argument("--parallel", type=int, default=1, help="Trials run at once (default 1).")
    run.add_argument(
        "--out", type=Path, help="Where report.json, junit.xml and trajectories go (default a new folder)."
    )
    run.add_argument("--timeout", type=float, default=120.0, help="Seconds an agent may take per trial (default 120).")
    run.add_argument(
        "--forms",
        choices=("world", "client"),
        default="world",
        help="Who answers the server's forms: the world, from the task's customer (default), or the agent's client.",
    )
    run.add_argument(
        "--mode",
        choices=("brief", "conversation"),
        default="brief",
        help="brief: the agent reads what the customer knows and wants (default); conversation: it gets only the "
        "opening message and must ask the customer at AFTERSALES_CUSTOMER_URL.",
    )
    run.add_argument(
        "--customer",
        default="scripted",
        help="The engine playing the customer in conversation mode: scripted (default), llm (a language model: "
        "AFTERSALES_CUSTOMER_MODEL, docs/tasks.md), module:Class, or replay:DIR to say again what the customer said "
        "in an earlier run's --out folder DIR, while the agent says what it said then (replay:DIR,fallback=ENGINE "
        "names the engine that takes over where it does not; default scripted).",
    )
    run.add_argument("--score-mentions", action="store_true", help="Fail trials whose stdout misses a fact to mention.")
    run.add_argument(
        "--judge",
        metavar="MODEL",
        help="A model deciding each task's judgements (a pydantic-ai model name; AFTERSALES_JUDGE_BASE_URL, "
        "_API_KEY and _SEED as for the customer). Reported beside the verdict; scored only with --score-judgements.",
    )
    run.add_argument(
        "--score-judgements", action="store_true", help="Fail trials with a judgement the judge decides fails."
    )
    run.add_argument("--database-url", help="Control database for the worlds (default a private SQLite folder).")
    run.add_argument(
        "--descriptions",
        type=Path,
        metavar="FILE",
        help="A tool description set every trial world serves (aftersales tools descriptions --export); report.json "
        "names it and hashes its texts.",
    )
    run.add_argument(
        "--compare-to",
        type=Path,
        metavar="DIR",
        help="A base run's --out folder: print the comparison, put it in report.html, write comparison.json.",
    )
    add_keep(run)
    run.set_defaults(run=run_command)
    actions = run.add_subparsers(dest="action", metavar="compare")
    comparing = actions.add_parser("compare", help="Compare two runs' reports; exit 1 when a task got worse.")
    comparing.add_argument("base", type=Path, metavar="BASE_DIR", help="The base run's --out folder.")
    comparing.add_argument("new", type=Path, metavar="NEW_DIR", help="The new run's --out folder.")
    comparing.add_argument(
        "--threshold",
        type=float,
        default=compare.THRESHOLD,
        help="How far a task's pass rate may fall before it counts as worse (default 0: any drop).",
    )
    comparing.add_argument("--json", action="store_true", help="Print the comparison as JSON.")
    comparing.set_defaults(run=run_compare)


def run_command(args: argparse.Namespace, settings: Settings) -> int:
    """Run the trials, print the table, write the files; exit 1 when any trial failed."""
    if not args.agent:
        raise ValueError("eval needs --agent CMD (or: aftersales eval compare BASE_DIR NEW_DIR)")
    if args.trials < 1 or args.parallel < 1:
        raise ValueError("--trials and --parallel must be at least 1")
    # A task with a problem runs nothing; then the split chosen, if any.
    tasks, skipped = runnable(of_split(checked(args.tasks, Catalogue.of(settings)), args.split))
    if args.score_judgements and not args.judge:
        raise ValueError("--score-judgements needs a judge: add --judge MODEL (for example --judge openai:gpt-4.1)")
    # A missing key or an unreachable provider is refused before any world is made.
    if args.mode == "conversation" and args.customer == "llm":
        preflight(ModelChoice.from_env("customer"))
    judge = ModelChoice.from_env("judge", args.judge) if args.judge else None
    if judge is not None:
        preflight(judge)
    base = None if args.compare_to is None else compare.load(args.compare_to)  # a wrong folder stops the run first
    texts = descriptions_used(args.descriptions, settings)  # a set that cannot be served stops the run before any world
    out = args.out or Path(tempfile.mkdtemp(prefix="aftersales-eval-out-"))
    out.mkdir(parents=True, exist_ok=True)
    agent = Agent(
        args.agent,
        args.timeout,
        args.forms,
        args.score_mentions,
        args.mode,
        args.customer,
        judge,
        args.score_judgements,
    )
    if args.mode == "conversation":  # a replay missing a trial is refused before the worlds' server starts
        check_engine(args.customer, [(task.id, number) for task in tasks for number in range(1, args.trials + 1)])

    def done(result: TrialResult) -> None:
        verdict = "pass" if result.passed else f"FAIL {result.verdict} ({', '.join(result.failed_parts)})"
        print(f"{result.task.id} trial {result.trial}: {verdict}", file=sys.stderr, flush=True)

    started, clock = datetime.now(UTC), time.perf_counter()
    served = {} if args.descriptions is None else {"tool_descriptions": args.descriptions.absolute()}
    with harness(args.database_url, args.keep, **served) as host:
        results = run_eval(host, agent, tasks, args.trials, args.parallel, out, done)
    seconds = time.perf_counter() - clock
    report = reports.build(
        results,
        tasks,
        args.agent,
        args.forms,
        args.trials,
        started,
        seconds,
        skipped,
        args.mode,
        descriptions=texts,
        customer=args.customer,
        judge=args.judge,
    )
    (out / "report.json").write_text(report.model_dump_json(indent=2), encoding="utf-8")
    (out / "junit.xml").write_bytes(reports.junit(report))
    compared = None if base is None else compare.compare(base, report, str(args.compare_to), str(out))
    if compared is not None:
        (out / "comparison.json").write_text(compared.model_dump_json(indent=2), encoding="utf-8")
    (out / "report.html").write_text(report_html.page(report, out, compared), encoding="utf-8")
    print(reports.table(report))
    if compared is not None:
        print(compare.text(compared))
    print(f"report: {out / 'report.json'}  html: {out / 'report.html'}  junit: {out / 'junit.xml'}")
    print(f"trajectories: {out / 'trajectories'}")
    return 0 if report.overall.passed == report.overall.trials else 1


def run_compare(args: argparse.Namespace, settings: Settings) -> int:
    """Print how the new run did against the base run; exit 1 when a task got worse."""
    compared = compare.compare(
        compare.load(args.base), compare.load(args.new), str(args.base), str(args.new), args.threshold
    )
    print(compared.model_dump_json(indent=2) if args.json else compare.text(compared))
    return 1 if compared.worse else 0


def descriptions_used(path: Path | None, settings: Settings) -> dict[str, str]:
    """The name and hash of the tool texts the run's worlds serve: the set at `path`, else today's ("default").

    The harness's server reads the same texts' settings (lifetimes, thresholds) as `settings`.
    """
    from aftersales.mcp.described import definitions
    from aftersales.mcp.descriptions import defaults, load

    today = definitions(settings)
    return (defaults(today) if path is None else load(path, today).completed(today)).shown()

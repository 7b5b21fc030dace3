"""`aftersales eval` run from a test with the example agents: its exit status, its report, the tasks that failed."""

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aftersales.cli.main import main
from aftersales.testing.tasks import ConversationRules, Task
from tests.support import ROOT

AGENT = f"{sys.executable} {ROOT / 'examples' / 'scripted_agent.py'}"
NOTHING = f"{sys.executable} {ROOT / 'examples' / 'do_nothing_agent.py'}"


def run(out: Path, agent: str, *options: str, tasks: list[str]) -> tuple[int, dict[str, Any]]:
    """Run the eval command; its exit status and report.json."""
    code = main(["eval", "--agent", agent, "--tasks", ",".join(tasks), "--out", str(out), "--parallel", "4", *options])
    return code, json.loads((out / "report.json").read_text(encoding="utf-8"))


def failed(report: dict[str, Any]) -> dict[str, list[str]]:
    """Failed tasks and the parts that failed in them."""
    return {
        task["id"]: sorted({part for result in task["results"] for part in result["failed_parts"]})
        for task in report["tasks"]
        if task["passed"] < task["trials"]
    }


def trajectory(out: Path, task: str, trial: int = 1) -> list[dict[str, Any]]:
    """The entries of one trial's trajectory."""
    lines = (out / "trajectories" / f"{task}.{trial}.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in lines.splitlines()]


# What the no-ask agent asks for: only what no lookup can give (the order number, or the email or phone to find it).
IDENTIFIERS = {"order_id", "email", "phone", "customer_id"}


def ids(tasks: list[Task]) -> set[str]:
    """The ids of some tasks."""
    return {task.id for task in tasks}


def with_rule(tasks: list[Task], test: Callable[[ConversationRules], bool]) -> set[str]:
    """The ids of the tasks whose conversation rules pass `test`."""
    return ids([task for task in tasks if task.conversation is not None and test(task.conversation)])

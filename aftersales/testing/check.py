"""`aftersales tasks check`: replay every task's reference solution on a fresh world and score it like an agent."""

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import anyio

from aftersales.testing.host import Host
from aftersales.testing.loader import unserved
from aftersales.testing.reference import StepResult, replay
from aftersales.testing.scoring import Score, expects_change, score
from aftersales.testing.tasks import Task
from aftersales.worlds.diff import describe


@dataclass(frozen=True)
class CheckResult:
    """One task's reference run: its score, and each step against what the step expects."""

    task: Task
    score: Score | None
    steps: list[StepResult]
    skipped: str | None = None  # why the task could not run here (a tool this server does not serve)

    @property
    def passed(self) -> bool:
        """The reference reached the expected outcome, obeyed the call rules, and every step went as written."""
        if self.score is None:
            return self.skipped is not None
        return self.score.passed and all(step.as_expected for step in self.steps)

    def problems(self) -> list[str]:
        """What went wrong, part by part."""
        if self.score is None:
            return []
        found = [f"outcome: {problem}" for problem in self.score.outcome]
        found += [f"calls: {problem}" for problem in self.score.calls]
        found += [f"conversation: {problem}" for problem in self.score.conversation]
        found += [
            f"reference step {number} ({step.step.call or 'say'}) came to {step.outcome}, expected {step.step.expect}: "
            f"{step.text[:200]}"
            for number, step in enumerate(self.steps, 1)
            if not step.as_expected
        ]
        return found

    def as_dict(self) -> dict[str, Any]:
        """The result as JSON for --json."""
        return {
            "id": self.task.id,
            "passed": self.passed,
            "skipped": self.skipped,
            "change": expects_change(self.task.expected),
            "world_hash": self.score.world_hash if self.score else None,
            "problems": self.problems(),
            "diff": self.score.diff if self.score and not self.passed else None,
        }


def check_task(host: Host, task: Task) -> CheckResult:
    """Replay one task's reference on a fresh world of its own and score the result."""
    missing = unserved(task)
    if missing:
        return CheckResult(task, None, [], skipped=f"needs {', '.join(missing)}, which this server does not serve")
    trial = host.open_trial(task)
    try:
        steps = anyio.run(replay, task, trial.url, trial.token)
        return CheckResult(task, score(task, host.diff(trial), host.trace(trial)), steps)
    finally:
        host.close_trial(trial)


def check_tasks(
    host: Host, tasks: list[Task], parallel: int = 1, done: Callable[[CheckResult], None] | None = None
) -> list[CheckResult]:
    """Check every task, `parallel` at a time; `done` hears of each as it finishes."""

    def one(task: Task) -> CheckResult:
        result = check_task(host, task)
        if done is not None:
            done(result)
        return result

    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        return list(pool.map(one, tasks))


def explain(result: CheckResult) -> str:
    """A failed check for a person: the problems, then the world's diff."""
    lines = [f"  {problem}" for problem in result.problems()]
    if result.score is not None and result.score.diff:
        lines += ["  " + line for line in describe(dict(result.score.diff)).splitlines()]
    return "\n".join(lines)

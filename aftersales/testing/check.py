"""`aftersales tasks check`: replay every task's reference solution on a fresh world and score it like an agent."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import anyio

from aftersales.testing.brief import Mode
from aftersales.testing.conversation.engines import engine_for
from aftersales.testing.host import Host
from aftersales.testing.loader import unserved
from aftersales.testing.parallel import run_all
from aftersales.testing.reference import Say, StepResult, replay
from aftersales.testing.scoring import Score, expects_change, score
from aftersales.testing.tasks import Task
from aftersales.worlds.diff import describe

MODES: tuple[Mode, ...] = ("brief", "conversation")  # `tasks check` replays each reference both ways


@dataclass(frozen=True)
class CheckResult:
    """One task's reference run: its score, and each step against what the step expects."""

    task: Task
    score: Score | None
    steps: list[StepResult]
    skipped: str | None = None  # why the task could not run here (a tool this server does not serve)
    mode: Mode = "brief"

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
            "mode": self.mode,
            "passed": self.passed,
            "skipped": self.skipped,
            "change": expects_change(self.task.expected),
            "world_hash": self.score.world_hash if self.score else None,
            "problems": self.problems(),
            "diff": self.score.diff if self.score and not self.passed else None,
        }


def check_task(host: Host, task: Task, mode: Mode = "brief") -> CheckResult:
    """Replay one task's reference on a fresh world of its own and score the result.

    In a conversation the reference's say steps go to the task's scripted customer, so its turns, the calls and the
    form rounds form the timeline the conversation rules are judged on.
    """
    missing = unserved(task)
    if missing:
        skipped = f"needs {', '.join(missing)}, which this server does not serve"
        return CheckResult(task, None, [], skipped=skipped, mode=mode)
    trial = host.open_trial(task, mode=mode)
    try:
        say: Say | None = None
        if mode == "conversation":
            conversation, _ = host.converse(trial, engine_for(task), task.turn_limit)

            async def say(text: str) -> str:
                return (await anyio.to_thread.run_sync(conversation.say, text)).reply.text

        steps = anyio.run(replay, task, trial.url, trial.token, say)
        return CheckResult(task, score(task, host.diff(trial), host.trace(trial)), steps, mode=mode)
    finally:
        host.close_trial(trial)


def check_tasks(
    host: Host,
    tasks: list[Task],
    parallel: int = 1,
    done: Callable[[CheckResult], None] | None = None,
    modes: Sequence[Mode] = MODES,
) -> list[CheckResult]:
    """Check every task in each of `modes`, `parallel` at a time; `done` hears of each as it finishes."""

    def one(job: tuple[Task, Mode]) -> CheckResult:
        result = check_task(host, *job)
        if done is not None:
            done(result)
        return result

    return run_all(one, [(task, mode) for task in tasks for mode in modes], parallel)


def explain(result: CheckResult) -> str:
    """A failed check for a person: the problems, then the world's diff."""
    lines = [f"  {problem}" for problem in result.problems()]
    if result.score is not None and result.score.diff:
        lines += ["  " + line for line in describe(dict(result.score.diff)).splitlines()]
    return "\n".join(lines)

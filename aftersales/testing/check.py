"""`aftersales tasks check`: replay every task's reference solution on a fresh world and score it like an agent."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import anyio

from aftersales.domain.calls import FAILED
from aftersales.testing.brief import Mode
from aftersales.testing.conversation.engines import engine_for
from aftersales.testing.hosts.in_process import Host
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
    score: Score | None  # None when the replay itself broke off (`error`)
    steps: list[StepResult]
    mode: Mode = "brief"
    error: str | None = None  # why the replay broke off, in one line (the other tasks still run)

    @property
    def passed(self) -> bool:
        """The reference reached the expected outcome, obeyed the call rules, and every step went as written."""
        if self.score is None:
            return False
        return self.score.passed and all(step.as_expected for step in self.steps)

    def problems(self) -> list[str]:
        """What went wrong, part by part; of a failed check, each failed step with the error it got."""
        found = [f"reference: the replay broke off: {self.error}"] if self.error else []
        if self.score is not None:
            found += [f"outcome: {problem}" for problem in self.score.outcome]
            found += [f"calls: {problem}" for problem in self.score.calls]
            found += [f"conversation: {problem}" for problem in self.score.conversation]
        for number, step in enumerate(self.steps, 1):
            expected = f", expected {step.step.expect}" if step.step.expect else ""
            if step.outcome == "not_run":
                found.append(f"reference step {number} ({step.step.call or 'say'}) {step.text[:400]}")
            elif not step.as_expected or (not self.passed and step.outcome in FAILED and not step.step.expect):
                found.append(
                    f"reference step {number} ({step.step.call or 'say'}) came to {step.outcome}{expected}: "
                    f"{step.text[:400]}"
                )
        return found

    def as_dict(self) -> dict[str, Any]:
        """The result as JSON for --json."""
        return {
            "id": self.task.id,
            "mode": self.mode,
            "passed": self.passed,
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
    try:
        trial = host.open_trial(task, mode=mode)
    except Exception as error:  # a world that cannot be made fails this task, not the run
        return CheckResult(task, None, [], mode=mode, error=_one_line(error))
    try:
        say: Say | None = None
        if mode == "conversation":
            conversation, _ = host.converse(trial, engine_for(task), task.turn_limit)

            async def say(text: str) -> str:
                return (await anyio.to_thread.run_sync(conversation.say, text)).reply.text

        steps = anyio.run(replay, task, trial.url, trial.token, say)
        return CheckResult(task, score(task, host.diff(trial), host.trace(trial)), steps, mode=mode)
    except Exception as error:  # a replay that breaks off fails this task, not the run
        return CheckResult(task, None, [], mode=mode, error=_one_line(error))
    finally:
        host.close_trial(trial)


def _one_line(error: BaseException) -> str:
    """An exception as a person reads it, without a traceback: each of a group's errors, by kind and message."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(_one_line(inner) for inner in error.exceptions)
    return f"{type(error).__name__}: {error}".replace("\n", " ")


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

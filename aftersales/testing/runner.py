"""`aftersales eval`: run an agent command on a fresh world per trial, enforce a timeout, score every trial."""

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from aftersales.testing.brief import brief_for
from aftersales.testing.hosting import TrialHost
from aftersales.testing.scoring import FailedPart, Score, score
from aftersales.testing.tasks import Task

ANSWER_CHARS = 4000  # of the agent's stdout kept as its final answer


@dataclass(frozen=True)
class TrialResult:
    """One trial: its score, how the agent process ended, and where its trajectory is."""

    task: Task
    trial: int
    score: Score
    exit_code: int | None
    timed_out: bool
    duration_s: float
    trajectory: str  # relative to the output folder
    answer: str

    @property
    def failed_parts(self) -> list[FailedPart]:
        """outcome, calls, mentions (when scored), and agent when it ran out of time."""
        parts = self.score.failed_parts
        return [*parts, "agent"] if self.timed_out else parts

    @property
    def passed(self) -> bool:
        """No part failed."""
        return not self.failed_parts


@dataclass(frozen=True)
class Agent:
    """How to run the agent: a shell command, its time limit, who answers forms, whether mentions are scored."""

    command: str
    timeout: float = 120.0
    forms: Literal["world", "client"] = "world"
    score_mentions: bool = False


def run_trial(host: TrialHost, agent: Agent, task: Task, number: int, out: Path) -> TrialResult:
    """Fork a world, run the agent against it with the three variables, then score the world and its trace."""
    trial = host.open_trial(task, scripted_forms=agent.forms == "world")
    name = f"{task.id}.{number}"
    brief = out / "briefs" / f"{name}.json"
    brief.write_text(brief_for(task, number, agent.forms).model_dump_json(indent=2), encoding="utf-8")
    env = {
        **os.environ,
        "AFTERSALES_MCP_URL": trial.url,
        "AFTERSALES_TOKEN": trial.token,
        "AFTERSALES_TASK_FILE": str(brief),
    }
    started = time.perf_counter()
    timed_out = False
    # A session of its own, so a timeout ends the agent's whole process group, not just the shell.
    process = subprocess.Popen(
        agent.command, shell=True, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        stdout, _ = process.communicate(timeout=agent.timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(process.pid, signal.SIGKILL)
        stdout, _ = process.communicate()
    duration = time.perf_counter() - started
    try:
        answer = stdout.decode("utf-8", "replace")[-ANSWER_CHARS:]
        trace = host.trace(trial)
        scored = score(task, host.diff(trial), trace, answer, agent.score_mentions)
        trajectory = Path("trajectories") / f"{name}.jsonl"
        lines = [json.dumps(entry, ensure_ascii=False, sort_keys=True) for entry in trace]
        (out / trajectory).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    finally:
        host.close_trial(trial)
    return TrialResult(task, number, scored, process.returncode, timed_out, duration, str(trajectory), answer)


def run_eval(
    host: TrialHost,
    agent: Agent,
    tasks: list[Task],
    trials: int,
    parallel: int,
    out: Path,
    done: Callable[[TrialResult], None] | None = None,
) -> list[TrialResult]:
    """Every trial of every task, `parallel` at a time, in task order in the result."""
    (out / "briefs").mkdir(parents=True, exist_ok=True)
    (out / "trajectories").mkdir(parents=True, exist_ok=True)

    def one(job: tuple[Task, int]) -> TrialResult:
        result = run_trial(host, agent, *job, out)
        if done is not None:
            done(result)
        return result

    jobs = [(task, number) for task in tasks for number in range(1, trials + 1)]
    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        return list(pool.map(one, jobs))

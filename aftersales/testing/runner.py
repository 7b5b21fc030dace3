"""`aftersales eval`: run an agent command on a fresh world per trial, enforce a timeout, score every trial.

In conversation mode each trial also gets a customer to talk to: an engine playing the task's customer behind the
trial's channel (AFTERSALES_CUSTOMER_URL), and a brief holding only the customer's opening message.
"""

import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from aftersales.testing.brief import Mode, brief_for, conversation_brief_for
from aftersales.testing.conversation.channel import Conversation
from aftersales.testing.conversation.engines import check_engine, engine_for, turn_limit_for
from aftersales.testing.conversation.misses import customer_misses
from aftersales.testing.conversation.model import CustomerEngine
from aftersales.testing.hosts.interface import NO_CHANNEL, NoChannel, TrialHost, TrialWorld
from aftersales.testing.judge import judge, not_judged
from aftersales.testing.llm import ModelChoice, Spend
from aftersales.testing.parallel import run_all
from aftersales.testing.scoring import (
    FailedPart,
    Score,
    ToolError,
    Verdict,
    calls_per_tool,
    score,
    server_faults,
    tool_errors,
    verdict,
)
from aftersales.testing.tasks import Task

ANSWER_CHARS = 4000  # of the agent's stdout kept as its final answer
STDERR_LINES, STDERR_CHARS = 40, 4000  # of the agent's stderr kept: its last lines, where a crash says why
UNMADE = Score(outcome=[], calls=[], world_hash="", diff={})  # the score of a trial whose world was never made
Engines = Callable[[Task, str, int], CustomerEngine]  # (task, engine name, trial) -> a fresh engine for that trial


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
    misses: tuple[str, ...] = ()  # where the simulated customer went wrong in the timeline (conversation.misses)
    infrastructure: tuple[str, ...] = ()  # what went wrong in the harness, if anything
    customer_usage: Spend | None = None  # what the customer's model replies cost in this trial (a model's engine)
    stderr: str = ""  # the last lines of the agent's stderr
    errors: tuple[ToolError, ...] = ()  # the calls that failed, as the agent saw them
    calls_per_tool: Mapping[str, int] = field(default_factory=dict)  # calls answered per tool (rounds not counted)

    @property
    def missed(self) -> bool:
        """The simulated customer went wrong somewhere in the timeline."""
        return bool(self.misses)

    @property
    def failed_parts(self) -> list[FailedPart]:
        """outcome, calls, mentions (when scored), agent (out of time), infrastructure (the harness failed)."""
        parts = self.score.failed_parts
        parts = [*parts, "agent"] if self.timed_out else parts
        return [*parts, "infrastructure"] if self.infrastructure else parts

    @property
    def passed(self) -> bool:
        """No part failed."""
        return not self.failed_parts

    @property
    def verdict(self) -> Verdict:
        """pass, agent, customer_miss, timeout or infrastructure."""
        return verdict(self.passed, self.timed_out, self.missed, bool(self.infrastructure))


@dataclass(frozen=True)
class Agent:
    """How to run the agent: its command, time limit, who answers forms, mentions scored, brief or conversation."""

    command: str
    timeout: float = 120.0
    forms: Literal["world", "client"] = "world"
    score_mentions: bool = False
    mode: Mode = "brief"
    customer: str = "scripted"  # the engine of conversation trials (conversation.engines)
    judge: ModelChoice | None = None  # the model deciding the tasks' judgements (testing.judge); None: not judged
    score_judgements: bool = False  # a judgement that fails fails the trial


class Interrupted(Exception):
    """The run was stopped (Ctrl-C, SIGTERM): the trial is not scored."""


class Agents:
    """The agent processes of the trials under way, so a stopped run ends every one of them."""

    def __init__(self) -> None:
        self._running: set[subprocess.Popen[bytes]] = set()
        self._lock = threading.Lock()
        self.stopped = False

    def start(self, command: str, env: dict[str, str]) -> "subprocess.Popen[bytes]":
        """Start the agent's shell command; refused once the run is stopped."""
        with self._lock:
            if self.stopped:
                raise Interrupted
            # A session of its own, so a timeout ends the agent's whole process group, not just the shell; the
            # terminal's Ctrl-C does not reach it either, so `stop` ends it.
            process = subprocess.Popen(
                command, shell=True, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
            )
            self._running.add(process)
            return process

    def finished(self, process: "subprocess.Popen[bytes]") -> None:
        """The process ended (or was killed): forget it; raise Interrupted when the run was stopped meanwhile."""
        with self._lock:
            self._running.discard(process)
            if self.stopped:
                raise Interrupted

    def stop(self) -> None:
        """Start no more agents and kill the process group of each one running."""
        with self._lock:
            self.stopped = True
            for process in self._running:
                with suppress(ProcessLookupError):  # it ended on its own a moment ago
                    os.killpg(process.pid, signal.SIGKILL)


def run_trial(
    host: TrialHost,
    agent: Agent,
    task: Task,
    number: int,
    out: Path,
    engines: Engines = engine_for,
    agents: Agents | None = None,
) -> TrialResult:
    """Fork a world, run the agent against it with its variables, then score the world and its trace."""
    name = f"{task.id}.{number}"
    try:
        trial = host.open_trial(task, scripted_forms=agent.forms == "world", mode=agent.mode)
    except Exception as problem:
        return TrialResult(
            task, number, UNMADE, None, False, 0.0, "", "", infrastructure=(_could_not("make", problem),)
        )
    try:
        return _run_in(host, trial, agent, task, number, out, name, engines, agents or Agents())
    finally:
        host.close_trial(trial)


def _run_in(
    host: TrialHost,
    trial: TrialWorld,
    agent: Agent,
    task: Task,
    number: int,
    out: Path,
    name: str,
    engines: Engines,
    agents: Agents,
) -> TrialResult:
    """Run and score one trial in its opened world."""
    env = {**os.environ, "AFTERSALES_MCP_URL": trial.url, "AFTERSALES_TOKEN": trial.token}
    conversation: Conversation | None = None
    engine: CustomerEngine | None = None
    if agent.mode == "conversation":
        try:
            engine = engines(task, agent.customer, number)
            conversation, env["AFTERSALES_CUSTOMER_URL"] = host.converse(trial, engine, turn_limit_for(task))
        except Exception as problem:
            failed = _could_not("start the customer of", problem)
            return TrialResult(task, number, UNMADE, None, False, 0.0, "", "", infrastructure=(failed,))
        written = conversation_brief_for(task, number, agent.forms).model_dump_json(indent=2)
    else:
        written = brief_for(task, number, agent.forms).model_dump_json(indent=2)
    brief = out / "briefs" / f"{name}.json"
    brief.write_text(written, encoding="utf-8")
    env["AFTERSALES_TASK_FILE"] = str(brief)
    started = time.perf_counter()
    timed_out = False
    process = agents.start(agent.command, env)
    try:
        stdout, stderr = process.communicate(timeout=agent.timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
    finally:
        agents.finished(process)
    duration = time.perf_counter() - started
    answer = stdout.decode("utf-8", "replace")[-ANSWER_CHARS:]
    said = tail(stderr.decode("utf-8", "replace"))
    try:
        trace = host.trace(trial)
        scored = score(task, host.diff(trial), trace, answer, agent.score_mentions)
        judged = judge(task.judgements, trace, agent.judge) if agent.judge else not_judged(task.judgements)
        scored = replace(scored, judgements=judged, judgements_scored=agent.score_judgements)
    except Exception as problem:
        failed = _could_not("read back", problem)
        return TrialResult(
            task, number, UNMADE, process.returncode, timed_out, duration, "", answer, (), (failed,), None, said
        )
    trajectory = Path("trajectories") / f"{name}.jsonl"
    lines = [json.dumps(entry, ensure_ascii=False, sort_keys=True) for entry in trace]
    (out / trajectory).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    faults = server_faults(trace)
    if agent.score_judgements:  # a scored judgement the judge could not decide is the harness's failure
        faults += [
            f"the judge did not decide {j.assertion!r}: {j.reasoning}" for j in judged if j.outcome == "not_judged"
        ]
    if conversation is not None and conversation.fault is not None:
        faults.append(f"the simulated customer failed: {conversation.fault}")
    return TrialResult(
        task,
        number,
        scored,
        process.returncode,
        timed_out,
        duration,
        str(trajectory),
        answer,
        tuple(customer_misses(task, trace)),
        tuple(faults),
        getattr(engine, "spent", None),
        said,
        tuple(tool_errors(trace)),
        calls_per_tool(trace),
    )


def tail(text: str) -> str:
    """The last STDERR_LINES lines of a stream, at most STDERR_CHARS characters."""
    return "\n".join(text.rstrip("\n").splitlines()[-STDERR_LINES:])[-STDERR_CHARS:]


def _could_not(what: str, problem: Exception) -> str:
    return f"the harness could not {what} the trial's world: {type(problem).__name__}: {problem}"


def run_eval(
    host: TrialHost,
    agent: Agent,
    tasks: list[Task],
    trials: int,
    parallel: int,
    out: Path,
    done: Callable[[TrialResult], None] | None = None,
    engines: Engines = engine_for,
) -> list[TrialResult]:
    """Every trial of every task, `parallel` at a time, in task order in the result."""
    jobs = [(task, number) for task in tasks for number in range(1, trials + 1)]
    if agent.mode == "conversation":
        if not host.channels:
            raise NoChannel(NO_CHANNEL)
        check_engine(agent.customer, [(task.id, number) for task, number in jobs])  # before any world is made
    (out / "briefs").mkdir(parents=True, exist_ok=True)
    (out / "trajectories").mkdir(parents=True, exist_ok=True)

    agents = Agents()

    def one(job: tuple[Task, int]) -> TrialResult:
        result = run_trial(host, agent, *job, out, engines, agents)
        if done is not None:
            done(result)
        return result

    return run_all(one, jobs, parallel, agents.stop)

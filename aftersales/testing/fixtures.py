"""What the pytest plugin's fixtures hand a test: a world of its own, and trials of a task against the team's agent."""

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

import anyio

from aftersales.durations import parse_duration
from aftersales.testing.brief import Brief, ConversationBrief, Mode, brief_for, conversation_brief_for
from aftersales.testing.conversation.channel import Conversation
from aftersales.testing.conversation.client import CustomerClient
from aftersales.testing.conversation.engines import check_engine, engine_for, turn_limit_for
from aftersales.testing.conversation.misses import customer_misses
from aftersales.testing.conversation.model import CustomerEngine
from aftersales.testing.customer import Callback, elicitation_callback
from aftersales.testing.hosts.interface import NO_CHANNEL, NoChannel, TrialHost, TrialWorld
from aftersales.testing.loader import load, load_file
from aftersales.testing.matching import outcome_problems
from aftersales.testing.rules import rule_problems
from aftersales.testing.scoring import Score, Verdict, pass_hat_ks, score, server_faults, verdict
from aftersales.testing.tasks import CallRules, Customer, Expected, Task
from aftersales.worlds.diff import describe


class TestWorld:
    """A fresh world for one test: where the agent connects, and what happened in it."""

    __test__ = False  # not a test class, whatever pytest's naming rules say

    def __init__(self, host: TrialHost, opened: TrialWorld, customer: Customer | None = None) -> None:
        self._host, self._opened, self.customer = host, opened, customer

    @property
    def id(self) -> str:
        """The world's id."""
        return self._opened.id

    @property
    def url(self) -> str:
        """The world's MCP endpoint (Streamable HTTP)."""
        return self._opened.url

    @property
    def token(self) -> str:
        """A bearer token for the world's caller, `agent`."""
        return self._opened.token

    def diff(self) -> dict[str, Any]:
        """The world against its start (format aftersales-world-diff/1)."""
        return self._host.diff(self._opened)

    def trace(self) -> list[dict[str, Any]]:
        """Every tools/call so far (format aftersales-trace/1)."""
        return self._host.trace(self._opened)

    def advance(self, by: str | timedelta) -> None:
        """Move the world's clock forward: "40m", "2d", or a timedelta."""
        self._host.advance_world(self.id, parse_duration(by))

    def expect(self, outcome: Expected | dict[str, Any], calls: CallRules | dict[str, Any] | None = None) -> None:
        """Fail the test, showing the problems and the diff, unless the world matches `outcome` and `calls` hold."""
        expected = outcome if isinstance(outcome, Expected) else Expected.model_validate(outcome)
        problems = [f"outcome: {problem}" for problem in outcome_problems(expected, self.diff())]
        if calls is not None:
            rules = calls if isinstance(calls, CallRules) else CallRules.model_validate(calls)
            problems += [f"calls: {problem}" for problem in rule_problems(rules, self.trace())]
        if problems:
            raise AssertionError("\n".join([*problems, describe(self.diff())]))

    def answer_forms_as(self, customer: Customer | dict[str, Any]) -> None:
        """From now on the world answers its own forms as this customer would (recorded as the scripted customer)."""
        chosen = customer if isinstance(customer, Customer) else Customer.model_validate(customer)
        self._host.answer_forms(self._opened, chosen)
        self.customer = chosen

    def elicitation_callback(self, customer: Customer | dict[str, Any] | None = None) -> Callback:
        """An MCP SDK elicitation callback answering as `customer` (default the world's) would, for an SDK agent."""
        if customer is not None:
            self.customer = customer if isinstance(customer, Customer) else Customer.model_validate(customer)
        if self.customer is None:
            raise ValueError("this world has no customer: run a task, pass one, or call answer_forms_as first")
        return elicitation_callback(self.customer)


Agent = Callable[[TestWorld, Any], Awaitable[str | None] | str | None]  # (world, Brief or ConversationBrief)


@dataclass
class TaskRun:
    """The trials of one task: each score and verdict, the passes and pass^k."""

    task: Task
    scores: list[Score] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)

    @property
    def trials(self) -> int:
        """How many trials ran."""
        return len(self.scores)

    @property
    def passed(self) -> int:
        """How many passed."""
        return sum(scored.passed for scored in self.scores)

    @property
    def pass_hat_k(self) -> dict[int, float]:
        """pass^k for k = 1 … trials."""
        return {int(k): value for k, value in pass_hat_ks([(self.trials, self.passed)]).items()}

    def failures(self) -> str:
        """Each failed trial's problems, part by part."""
        lines = []
        for number, scored in enumerate(self.scores, 1):
            if not scored.passed:
                lines += [
                    f"trial {number} {part}: {problem}"
                    for part in ("outcome", "calls")
                    for problem in getattr(scored, part)
                ]
        return "\n".join(lines)


class AgentTrials:
    """Runs a shipped or custom task against the team's agent: a fresh world per trial, scored like `eval`."""

    def __init__(self, host: TrialHost, record: Callable[[TaskRun], None]) -> None:
        self._host, self._record = host, record

    def run(
        self,
        task: str | Path | Task | dict[str, Any],
        agent: Agent,
        trials: int = 1,
        forms: Literal["world", "client"] = "world",
        mode: Mode = "brief",
        customer: str | Callable[[Task], CustomerEngine] = "scripted",
    ) -> TaskRun:
        """Call `agent(world, brief)` once per trial; its return value is its final answer to the customer.

        In conversation mode the brief is a ConversationBrief, and `brief.customer.say(text)` talks to the customer,
        played by `customer`: an engine name (conversation.engines: "replay:DIR" replays an eval run's customers)
        or a function making an engine for the task.
        """
        chosen = _task(task)
        if mode == "conversation" and not self._host.channels:
            raise NoChannel(NO_CHANNEL)
        if mode == "conversation" and isinstance(customer, str):
            check_engine(customer, [(chosen.id, number) for number in range(1, trials + 1)])
        run = TaskRun(chosen)
        for number in range(1, trials + 1):
            opened = self._host.open_trial(chosen, scripted_forms=forms == "world", mode=mode)
            world = TestWorld(self._host, opened, chosen.customer)
            try:
                conversation, brief = self._brief(chosen, opened, number, forms, mode, customer)
                answer = _call(agent, world, brief)
                trace = world.trace()
                scored = score(chosen, world.diff(), trace, answer)
                faulty = bool(server_faults(trace)) or (conversation is not None and conversation.fault is not None)
                run.scores.append(scored)
                run.verdicts.append(verdict(scored.passed, False, bool(customer_misses(chosen, trace)), faulty))
            finally:
                self._host.close_trial(opened)
        self._record(run)
        return run

    def _brief(
        self,
        task: Task,
        opened: TrialWorld,
        number: int,
        forms: Literal["world", "client"],
        mode: Mode,
        customer: str | Callable[[Task], CustomerEngine],
    ) -> tuple[Conversation | None, Brief | ConversationBrief]:
        """The trial's brief; in conversation mode with the customer's channel started and attached."""
        if mode == "brief":
            return None, brief_for(task, number, forms)
        engine = engine_for(task, customer, number) if isinstance(customer, str) else customer(task)
        conversation, url = self._host.converse(opened, engine, turn_limit_for(task))
        return conversation, conversation_brief_for(task, number, forms, CustomerClient(url, opened.token))


def _task(task: str | Path | Task | dict[str, Any]) -> Task:
    if isinstance(task, Task):
        return task
    if isinstance(task, dict):
        return Task.model_validate(task)
    if isinstance(task, Path):
        return load_file(task)
    return load(task)[0]


def _call(agent: Agent, world: TestWorld, brief: Brief | ConversationBrief) -> str | None:
    answer = agent(world, brief)
    if inspect.isawaitable(answer):
        pending = answer

        async def wait() -> str | None:
            return await pending

        return anyio.run(wait)
    return answer

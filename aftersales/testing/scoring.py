"""Scoring a trial (the world's diff against the expected outcome, the trace against the call and conversation
rules), its verdict and pass^k.

Every trial gets one verdict: `pass`; `infrastructure` when the harness failed (the world could not be made, the
server or the simulated customer failed, the world could not be read back); else, for a trial that failed,
`customer_miss` when the customer missed an agent message in its timeline (the simulator's fault, not the agent's),
`timeout` when the agent ran out of time, and `agent` for everything else.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from math import comb
from typing import Any, Literal

from aftersales.testing.conversation_rules import conversation_problems
from aftersales.testing.judge import Judgement
from aftersales.testing.matching import outcome_problems
from aftersales.testing.rules import rule_problems
from aftersales.testing.tasks import Expected, Task
from aftersales.worlds.trace import is_turn

FailedPart = Literal["outcome", "calls", "conversation", "mentions", "judgements", "agent", "infrastructure"]
Verdict = Literal["pass", "agent", "customer_miss", "timeout", "infrastructure"]
VERDICTS: tuple[Verdict, ...] = ("pass", "agent", "customer_miss", "timeout", "infrastructure")
ERROR_CHARS = 300  # of a failed call's message kept in the report (the trajectory keeps it whole)
SERVER_FAULT = "internal"  # the error kind of a call that failed on an unexpected error inside the server


@dataclass(frozen=True)
class Score:
    """Why a trial passed or failed: the problems of each part, the diff it was judged on, the world's hash."""

    outcome: list[str]
    calls: list[str]
    world_hash: str
    diff: Mapping[str, Any]
    mentions: dict[str, bool] = field(default_factory=dict)
    mentions_scored: bool = False
    conversation: list[str] = field(default_factory=list)  # judged only when the trial was a conversation
    judgements: list[Judgement] = field(default_factory=list)  # the judge's decisions (testing.judge)
    judgements_scored: bool = False

    @property
    def failed_parts(self) -> list[FailedPart]:
        """The parts that failed: outcome, calls, conversation, and mentions when they are scored."""
        parts: list[FailedPart] = []
        if self.outcome:
            parts.append("outcome")
        if self.calls:
            parts.append("calls")
        if self.conversation:
            parts.append("conversation")
        if self.mentions_scored and not all(self.mentions.values()):
            parts.append("mentions")
        if self.judgements_scored and any(judged.outcome == "fails" for judged in self.judgements):
            parts.append("judgements")
        return parts

    @property
    def passed(self) -> bool:
        """A trial passes when its outcome matches and every call (and conversation) rule holds."""
        return not self.failed_parts


def score(
    task: Task,
    diff: Mapping[str, Any],
    trace: Sequence[Mapping[str, Any]],
    answer: str | None = None,
    score_mentions: bool = False,
) -> Score:
    """Judge one trial from the world's diff (against its start) and trace; `answer` is the agent's final words.

    The conversation rules judge only a trial whose trace has turns (a conversation); a brief-mode trial has none.
    """
    spoken = (answer or "").casefold()
    return Score(
        outcome=outcome_problems(task.expected, diff),
        calls=rule_problems(task.calls, trace),
        world_hash=str(diff.get("after", {}).get("hash", "")),
        diff=diff,
        mentions={fact: fact.casefold() in spoken for fact in task.mention},
        mentions_scored=score_mentions,
        conversation=conversation_problems(task, trace),
    )


def server_faults(trace: Sequence[Mapping[str, Any]]) -> list[str]:
    """The calls that failed inside the server (not a task's simulated fault, not the agent's arguments)."""
    return [
        f"call #{entry['seq']} ({entry['tool']}) failed on an internal error of the server"
        for entry in trace
        if not is_turn(entry) and entry.get("error_kind") == SERVER_FAULT
    ]


@dataclass(frozen=True)
class ToolError:
    """A call that failed as the agent saw it: a tool error (its kind) or a protocol error, and the first line."""

    seq: int
    tool: str
    outcome: str
    kind: str | None
    message: str
    fault: str | None = None  # response_lost: the task dropped the answer of a call that took effect


def tool_errors(trace: Sequence[Mapping[str, Any]]) -> list[ToolError]:
    """Every call of the trace that failed (tool or protocol error), in order."""
    return [
        ToolError(
            int(entry["seq"]),
            str(entry["tool"]),
            str(entry["outcome"]),
            entry.get("error_kind"),
            _first_line((entry.get("error") or {}).get("message")),
            entry.get("fault"),
        )
        for entry in trace
        if not is_turn(entry) and entry.get("outcome") in ("tool_error", "protocol_error")
    ]


def calls_per_tool(trace: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Calls per tool that got an answer, in order of first call: an input_required round is not a call of its own."""
    counts: dict[str, int] = {}
    for entry in trace:
        if not is_turn(entry) and entry.get("outcome") != "input_required":
            counts[str(entry["tool"])] = counts.get(str(entry["tool"]), 0) + 1
    return counts


def _first_line(message: object) -> str:
    text = str(message or "").strip()
    return text.splitlines()[0][:ERROR_CHARS] if text else "no message"


def verdict(passed: bool, timed_out: bool, missed: bool, infrastructure: bool) -> Verdict:
    """One trial's verdict (see the module's text for the order)."""
    if infrastructure:
        return "infrastructure"
    if passed:
        return "pass"
    if missed:
        return "customer_miss"
    return "timeout" if timed_out else "agent"


def expects_change(expected: Expected) -> bool:
    """Whether the task's right outcome is a change: an unchanged world (a do-nothing agent) misses it."""
    return bool(outcome_problems(expected, {"tables": {}}))


def pass_hat_k(trials: int, passed: int, k: int) -> float:
    """τ²-bench's pass^k: the chance that k independent trials all pass, estimated from n >= k trials."""
    if not 1 <= k <= trials:
        raise ValueError(f"pass^k needs 1 <= k <= trials, got k={k} with {trials} trials")
    return comb(passed, k) / comb(trials, k)


def pass_hat_ks(results: Sequence[tuple[int, int]], ks: Sequence[int] | None = None) -> dict[str, float]:
    """pass^k for k = 1 … the fewest trials of any task, averaged over tasks; keys are k as text (JSON).

    With `ks`, pass^k for each of those k, averaged over the tasks with at least k trials (k left out when none has).
    """
    if not results:
        return {}
    if ks is None:
        ks = range(1, min(trials for trials, _ in results) + 1)
    figures = {}
    for k in ks:
        enough = [(trials, passed) for trials, passed in results if trials >= k]
        if enough:
            figures[str(k)] = sum(pass_hat_k(trials, passed, k) for trials, passed in enough) / len(enough)
    return figures

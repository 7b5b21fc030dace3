"""Scoring a trial (the world's diff against the expected outcome, the trace against the call and conversation
rules) and pass^k."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from math import comb
from typing import Any, Literal

from aftersales.testing.conversation_rules import conversation_problems
from aftersales.testing.matching import outcome_problems
from aftersales.testing.rules import rule_problems
from aftersales.testing.tasks import Expected, Task

FailedPart = Literal["outcome", "calls", "conversation", "mentions", "agent"]


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


def expects_change(expected: Expected) -> bool:
    """Whether the task's right outcome is a change: an unchanged world (a do-nothing agent) misses it."""
    return bool(outcome_problems(expected, {"tables": {}}))


def pass_hat_k(trials: int, passed: int, k: int) -> float:
    """τ²-bench's pass^k: the chance that k independent trials all pass, estimated from n >= k trials."""
    if not 1 <= k <= trials:
        raise ValueError(f"pass^k needs 1 <= k <= trials, got k={k} with {trials} trials")
    return comb(passed, k) / comb(trials, k)


def pass_hat_ks(results: Sequence[tuple[int, int]]) -> dict[str, float]:
    """pass^k for k = 1 … the fewest trials of any task, averaged over tasks; keys are k as text (JSON)."""
    if not results:
        return {}
    most = min(trials for trials, _ in results)
    return {
        str(k): sum(pass_hat_k(trials, passed, k) for trials, passed in results) / len(results)
        for k in range(1, most + 1)
    }

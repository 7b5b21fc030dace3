"""Diagnostic judgements: a model decides whether each of a task's natural-language assertions holds for a trial.

A task's `judgements` (for example "the agent apologised for the fault") are asked of the judge's model
(`--judge MODEL`, the AFTERSALES_JUDGE_* settings of aftersales.testing.llm) one at a time, with the trial's
timeline as a transcript and judge_prompt.md as the prompt. Each comes back `holds` or `fails` with the judge's
reasoning and usage; with no judge they are `not_judged`. They never change pass or fail unless the run scores them
(`--score-judgements`); a judge that fails on one assertion makes it `not_judged` with the reason, not a crash.
"""

import asyncio
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, Field

from aftersales.testing.llm import ModelChoice, Usage, build, settings_for, usage_of
from aftersales.worlds.trace import is_turn

TEMPLATE = resources.files("aftersales.testing").joinpath("judge_prompt.md").read_text("utf-8")
PROMPT_VERSION = hashlib.sha256(TEMPLATE.encode("utf-8")).hexdigest()[:12]
RESULT_CHARS = 600  # of a call's result shown to the judge
Outcome = Literal["holds", "fails", "not_judged"]


class Decision(BaseModel):
    """The judge model's answer (its output type)."""

    holds: bool = Field(description="Whether the statement holds for this conversation.")
    reasoning: str = Field(max_length=2000, description="One or two sentences pointing at the turns relied on.")


@dataclass(frozen=True)
class Judgement:
    """One assertion of a trial, as the judge decided it (or why it was not judged)."""

    assertion: str
    outcome: Outcome
    reasoning: str | None = None
    usage: Usage | None = None

    def as_json(self) -> dict[str, Any]:
        """The report's judgement object."""
        return {
            "assertion": self.assertion,
            "outcome": self.outcome,
            "reasoning": self.reasoning,
            "usage": None if self.usage is None else self.usage.as_json(),
        }


def not_judged(assertions: Sequence[str], why: str = "no judge was given (--judge MODEL)") -> list[Judgement]:
    """Each assertion listed as not judged, with the reason."""
    return [Judgement(assertion, "not_judged", why) for assertion in assertions]


def transcript(trace: Sequence[Mapping[str, Any]]) -> str:
    """The trial's timeline as the judge reads it: each turn and each call, in order."""
    lines = []
    for entry in sorted(trace, key=lambda entry: int(entry["seq"])):
        if is_turn(entry):
            lines.append(f"#{entry['seq']} {entry['speaker']}: {entry.get('text') or '(nothing)'}")
            continue
        shown = entry.get("result") if entry.get("outcome") == "ok" else entry.get("error")
        result = json.dumps(shown, ensure_ascii=False, sort_keys=True)
        result = result if len(result) <= RESULT_CHARS else result[: RESULT_CHARS - 1] + "…"
        arguments = json.dumps(entry.get("arguments"), ensure_ascii=False, sort_keys=True)
        lines.append(f"#{entry['seq']} call {entry['tool']} {arguments} -> {entry.get('outcome')}: {result}")
    return "\n".join(lines)


def judge(assertions: Sequence[str], trace: Sequence[Mapping[str, Any]], choice: ModelChoice) -> list[Judgement]:
    """Each assertion decided by the judge's model on the trial's transcript."""
    if not assertions:
        return []
    shown = transcript(trace)
    return asyncio.run(_all(assertions, shown, choice))


async def _all(assertions: Sequence[str], shown: str, choice: ModelChoice) -> list[Judgement]:
    return [await _one(assertion, shown, choice) for assertion in assertions]


async def _one(assertion: str, shown: str, choice: ModelChoice) -> Judgement:
    """One assertion; a judge that fails leaves it not judged, saying why."""
    from pydantic_ai import Agent

    prompt = TEMPLATE.replace("{assertion}", assertion).replace("{transcript}", shown)
    agent = Agent(build(choice), output_type=Decision, model_settings=settings_for(choice))
    try:
        result = await agent.run(prompt)
    except Exception as problem:  # a provider's error on one assertion is reported, and the others are judged
        return Judgement(assertion, "not_judged", f"the judge failed: {type(problem).__name__}: {problem}")
    decision: Decision = result.output
    usage = usage_of(result, choice.model, PROMPT_VERSION)
    return Judgement(assertion, "holds" if decision.holds else "fails", decision.reasoning.strip(), usage)

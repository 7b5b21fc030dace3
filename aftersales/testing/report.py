"""What `aftersales eval` writes: report.json (its shape is `Report`, published as report.schema.json), junit.xml."""

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from aftersales.testing.brief import Mode
from aftersales.testing.llm import Spend
from aftersales.testing.runner import TrialResult
from aftersales.testing.scoring import VERDICTS, FailedPart, Verdict, expects_change, pass_hat_ks
from aftersales.testing.tasks import SPLITS, Split, Task
from aftersales.testing.trajectory_lines import Spent as Usage
from aftersales.testing.trajectory_lines import TurnUsage
from aftersales.worlds.diff import describe

FORMAT = "aftersales-eval-report/1"


class Closed(BaseModel):
    """Report parts admit no other keys."""

    model_config = ConfigDict(extra="forbid")


class JudgementReport(Closed):
    """One of the task's judgements in one trial."""

    assertion: str
    outcome: Literal["holds", "fails", "not_judged"]
    reasoning: str | None = Field(description="The judge's reasoning, or why it was not judged.")
    usage: TurnUsage | None = Field(description="What the judge's model spent on it; null when not judged.")


class Part(Closed):
    """One scored part of a trial."""

    passed: bool
    problems: list[str]


class ToolErrorReport(Closed):
    """A call that failed, as the agent saw it."""

    seq: int = Field(ge=1, description="The call's seq in the trajectory.")
    tool: str
    outcome: Literal["tool_error", "protocol_error"]
    kind: str | None = Field(description="A tool error's kind (rule, invalid_arguments, ...); null otherwise.")
    message: str = Field(description="The first line of the error's message.")
    fault: Literal["response_lost"] | None = Field(
        default=None, description="response_lost: the task dropped the answer of a call that took effect."
    )


class TrialReport(Closed):
    """One trial."""

    trial: int = Field(ge=1)
    passed: bool
    verdict: Verdict = Field(
        description="pass; agent (the outcome, a call rule or a conversation rule failed); customer_miss (the "
        "simulated customer missed a message in the timeline and the task failed); timeout; infrastructure (the "
        "harness failed: the world could not be made, the server or the customer engine failed)."
    )
    failed_parts: list[FailedPart]
    outcome: Part = Field(description="The world's diff against the expected outcome.")
    calls: Part = Field(description="The trace against the call rules.")
    conversation: Part = Field(
        default_factory=lambda: Part(passed=True, problems=[]),
        description="The conversation's timeline against the conversation rules (always passed in brief mode).",
    )
    mentions: dict[str, bool] = Field(description="Each fact to mention, and whether the agent's stdout holds it.")
    world_hash: str = Field(description="Hash of the world's end state: equal hashes, equal outcome verdicts.")
    exit_code: int | None
    timed_out: bool
    customer_missed: bool = Field(description="The simulated customer went wrong in the timeline (customer_misses).")
    customer_misses: list[str] = Field(
        default_factory=list,
        description="Each place the simulated customer went wrong: a message it could not map, a fact it gave "
        'unasked, an ending before the agent answered (docs/conversations.md, "Customer misses").',
    )
    customer_usage: Usage | None = Field(
        default=None, description="What the customer's model spent in this trial; null for an engine with no model."
    )
    judgements: list[JudgementReport] = Field(
        default_factory=list,
        description="The task's judgements as the judge decided them (--judge); they fail the trial (the part "
        "judgements) only with --score-judgements.",
    )
    infrastructure: list[str] = Field(description="What went wrong in the harness, if anything.")
    answer: str = Field(default="", description="The agent's stdout, its final answer (the last 4000 characters).")
    stderr: str = Field(default="", description="The last lines of the agent's stderr (40 lines, 4000 characters).")
    tool_errors: list[ToolErrorReport] = Field(
        default_factory=list, description="Every call that failed, in order, as the agent saw it."
    )
    calls_per_tool: dict[str, int] = Field(
        default_factory=dict,
        description="Calls per tool that got an answer (a round of questions and the retry answering it: one call).",
    )
    duration_s: float
    trajectory: str = Field(description="The trial's trace (aftersales-trace/1 JSON lines), relative to the report.")
    diff: dict[str, Any] = Field(description="The world's diff against the task's start (aftersales-world-diff/1).")


class Figures(Closed):
    """Trials, passes, the pass rate and pass^k."""

    trials: int = Field(ge=0)
    passed: int = Field(ge=0)
    pass_rate: float = Field(ge=0, le=1)
    pass_hat_k: dict[str, float] = Field(
        description="k (as text) -> the chance that k independent trials all pass: C(passed, k) / C(trials, k), "
        "averaged over tasks overall."
    )
    verdicts: dict[Verdict, int] = Field(description="How many trials got each verdict.")
    pass_hat_k_without_customer_misses: dict[str, float] = Field(
        description="pass^k over the trials whose verdict is not customer_miss; overall, each k averaged over the "
        "tasks with at least k such trials."
    )


class TaskReport(Figures):
    """One task's trials."""

    id: str
    title: str
    split: Split = Field(default="dev", description="The task's split: dev or held_out.")
    change: bool = Field(description="Whether the task's right outcome changes the world.")
    end_states: int = Field(ge=0, description="Distinct world hashes its trials ended in.")
    results: list[TrialReport]


class Overall(Figures):
    """Every task together."""

    tasks: int = Field(ge=0)


class DescriptionsUsed(Closed):
    """The tool description set a run's agent was shown."""

    name: str = Field(description="The set's name; \"default\" for the server's own texts.")
    sha256: str = Field(
        pattern="^[0-9a-f]{64}$", description="The hash of every text served: equal hashes, equal texts."
    )


class Report(Closed):
    """report.json."""

    format: Literal["aftersales-eval-report/1"] = "aftersales-eval-report/1"
    agent: str
    started_at: str
    duration_s: float
    trials_per_task: int = Field(ge=1)
    mode: Mode = Field(
        default="brief", description="brief: the agent read the customer's brief; conversation: it talked."
    )
    forms: Literal["world", "client"]
    overall: Overall
    splits: dict[Split, Overall] = Field(
        default_factory=dict,
        description="The same figures for the tasks of each split run (dev, held_out): pass^k on the tasks a team "
        "tuned on beside the tasks it did not.",
    )
    tasks: list[TaskReport]
    skipped: dict[str, str] = Field(
        default_factory=dict, description="Tasks not run, by id, with the reason (a tool this server does not serve)."
    )
    customer: str | None = Field(
        default=None, description="The engine that played the customer (conversation mode): scripted, llm, ..."
    )
    customer_usage: Usage | None = Field(
        default=None,
        description="What the customer's model spent over the run (replayed replies spend nothing); null when no "
        "trial's customer was a model.",
    )
    judge: str | None = Field(default=None, description="The judge's model (--judge), when the run had one.")
    judge_usage: Usage | None = Field(default=None, description="What the judge's model spent over the run.")
    tool_descriptions: DescriptionsUsed | None = Field(
        default=None, description="The tool texts every trial world served (eval --descriptions), to compare runs by."
    )


def build(
    results: list[TrialResult],
    tasks: list[Task],
    agent: str,
    forms: str,
    trials: int,
    started: datetime,
    seconds: float,
    skipped: dict[str, str] | None = None,
    mode: Mode = "brief",
    descriptions: Mapping[str, str] | None = None,
    customer: str | None = None,
    judge: str | None = None,
) -> Report:
    """The report of a run."""
    reports, clean = [], []
    for task in tasks:
        mine = [result for result in results if result.task.id == task.id]
        passed = sum(result.passed for result in mine)
        counted = _without_misses(mine)
        clean.append(counted)
        reports.append(
            TaskReport(
                id=task.id,
                title=task.title,
                split=task.split,
                change=expects_change(task.expected),
                trials=len(mine),
                passed=passed,
                pass_rate=passed / len(mine) if mine else 0.0,
                pass_hat_k=pass_hat_ks([(len(mine), passed)]),
                verdicts=_verdicts(mine),
                pass_hat_k_without_customer_misses=pass_hat_ks([counted], range(1, counted[0] + 1)),
                end_states=len({result.score.world_hash for result in mine}),
                results=[_trial(result) for result in mine],
            )
        )
    overall = _overall(reports, results, clean)
    splits = {
        split: _overall(
            [report for report in reports if report.split == split],
            [result for result in results if result.task.split == split],
            [counted for report, counted in zip(reports, clean, strict=True) if report.split == split],
        )
        for split in SPLITS
        if any(task.split == split for task in tasks)
    }
    return Report(
        agent=agent,
        started_at=started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        duration_s=round(seconds, 3),
        trials_per_task=trials,
        mode=mode,
        forms="client" if forms == "client" else "world",
        overall=overall,
        splits=splits,
        tasks=reports,
        skipped=skipped or {},
        customer=customer if mode == "conversation" else None,
        customer_usage=_usage(_spent(results)),
        judge=judge,
        judge_usage=_usage(_judged(results)) if judge else None,
        tool_descriptions=None if descriptions is None else DescriptionsUsed(**descriptions),
    )


def _overall(reports: list[TaskReport], results: list[TrialResult], clean: list[tuple[int, int]]) -> Overall:
    """The figures of some tasks together: pass^k averaged over them (each k over the tasks with k trials)."""
    total, passed = len(results), sum(result.passed for result in results)
    every = pass_hat_ks([(task.trials, task.passed) for task in reports])
    return Overall(
        tasks=len(reports),
        trials=total,
        passed=passed,
        pass_rate=passed / total if total else 0.0,
        pass_hat_k=every,
        verdicts=_verdicts(results),
        pass_hat_k_without_customer_misses=pass_hat_ks(clean, [int(k) for k in every]),
    )


def _judged(results: list[TrialResult]) -> Spend:
    """What the judge's model spent on every trial's judgements."""
    total = Spend()
    for result in results:
        for judged in result.score.judgements:
            if judged.usage is not None:
                total.add(judged.usage)
    return total


def _spent(results: list[TrialResult]) -> Spend | None:
    """What every trial's customer model spent, summed; None when no trial's customer was a model."""
    spends = [result.customer_usage for result in results if result.customer_usage is not None]
    if not spends:
        return None
    total = Spend()
    for spend in spends:
        total.add(spend)
    return total


def _usage(spend: Spend | None) -> Usage | None:
    return None if spend is None else Usage.model_validate(spend.as_json())


def _verdicts(results: list[TrialResult]) -> dict[Verdict, int]:
    """Trials per verdict, every verdict listed."""
    return {name: sum(result.verdict == name for result in results) for name in VERDICTS}


def _without_misses(results: list[TrialResult]) -> tuple[int, int]:
    """(trials, passed) of the trials that are not customer misses."""
    kept = [result for result in results if result.verdict != "customer_miss"]
    return len(kept), sum(result.passed for result in kept)


def _trial(result: TrialResult) -> TrialReport:
    scored = result.score
    return TrialReport(
        trial=result.trial,
        passed=result.passed,
        verdict=result.verdict,
        failed_parts=result.failed_parts,
        outcome=Part(passed=not scored.outcome, problems=scored.outcome),
        calls=Part(passed=not scored.calls, problems=scored.calls),
        conversation=Part(passed=not scored.conversation, problems=scored.conversation),
        mentions=scored.mentions,
        world_hash=scored.world_hash,
        exit_code=result.exit_code,
        timed_out=result.timed_out,
        customer_missed=result.missed,
        customer_misses=list(result.misses),
        customer_usage=_usage(result.customer_usage),
        judgements=[JudgementReport.model_validate(judged.as_json()) for judged in scored.judgements],
        infrastructure=list(result.infrastructure),
        answer=result.answer,
        stderr=result.stderr,
        tool_errors=[ToolErrorReport.model_validate(vars(error)) for error in result.errors],
        calls_per_tool=dict(result.calls_per_tool),
        duration_s=round(result.duration_s, 3),
        trajectory=result.trajectory,
        diff=dict(scored.diff),
    )


def junit(report: Report) -> bytes:
    """JUnit XML for CI systems: a suite per task, a test case per trial, a failure naming the parts that failed."""
    root = ET.Element(
        "testsuites",
        name="aftersales eval",
        tests=str(report.overall.trials),
        failures=str(report.overall.trials - report.overall.passed),
        time=f"{report.duration_s:.3f}",
    )
    overall = _properties(root, report.overall)
    for split, figures in report.splits.items():  # "dev pass^1", "held_out verdict.pass", …
        for name, value in _named(figures):
            ET.SubElement(overall, "property", name=f"{split} {name}", value=value)
    for task in report.tasks:
        suite = ET.SubElement(
            root,
            "testsuite",
            name=task.id,
            tests=str(task.trials),
            failures=str(task.trials - task.passed),
            time=f"{sum(result.duration_s for result in task.results):.3f}",
        )
        ET.SubElement(_properties(suite, task), "property", name="split", value=task.split)
        for result in task.results:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=f"aftersales.tasks.{task.id}",
                name=f"trial {result.trial}",
                time=f"{result.duration_s:.3f}",
            )
            ET.SubElement(ET.SubElement(case, "properties"), "property", name="verdict", value=result.verdict)
            if not result.passed:
                failure = ET.SubElement(
                    case,
                    "failure",
                    type=",".join(result.failed_parts),
                    message=f"{result.verdict}: failed: {', '.join(result.failed_parts)}",
                )
                failure.text = explain(result)
    document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return document


def _properties(parent: ET.Element, figures: Figures) -> ET.Element:
    """Verdict counts and both pass^k figures, as JUnit properties (the properties element, for more)."""
    properties = ET.SubElement(parent, "properties")
    for name, value in _named(figures):
        ET.SubElement(properties, "property", name=name, value=value)
    return properties


def _named(figures: Figures) -> list[tuple[str, str]]:
    """Verdict counts and both pass^k figures, by property name."""
    named = [(f"verdict.{name}", str(count)) for name, count in figures.verdicts.items()]
    named += [(f"pass^{k}", f"{value:.6f}") for k, value in figures.pass_hat_k.items()]
    named += [
        (f"pass^{k} without customer misses", f"{v:.6f}") for k, v in figures.pass_hat_k_without_customer_misses.items()
    ]
    return named


PARTS = ("outcome", "calls", "conversation")  # the parts whose problems a report lists


def problems(result: TrialReport) -> list[tuple[str, str]]:
    """(part, problem) for every problem of the trial's scored parts, in the order a person reads them."""
    return [(part, problem) for part in PARTS for problem in getattr(result, part).problems]


def refusals(result: TrialReport) -> list[str]:
    """The tool errors the agent got: a line per tool that failed every time, then one per failed call."""
    failed: dict[str, int] = {}
    for error in result.tool_errors:
        failed[error.tool] = failed.get(error.tool, 0) + 1
    lines = [
        f"tool errors: every {tool} call failed ({count} of {count})"
        for tool, count in failed.items()
        if result.calls_per_tool.get(tool) == count
    ]
    for error in result.tool_errors:
        why = error.kind or error.outcome
        lost = ", its answer dropped by the task" if error.fault else ""
        lines.append(f"tool error: call #{error.seq} {error.tool} ({why}{lost}): {error.message}")
    return lines


def explain(result: TrialReport) -> str:
    """A failed trial for a person: its verdict, each part's problems, the tool errors it got, then the diff."""
    lines = [f"verdict: {result.verdict}"]
    lines += [f"{part}: {problem}" for part, problem in problems(result)]
    lines += [f"infrastructure: {problem}" for problem in result.infrastructure]
    lines += [f"customer: {miss}" for miss in result.customer_misses]
    lines += [f"judgement fails: {j.assertion} ({j.reasoning})" for j in result.judgements if j.outcome == "fails"]
    if result.timed_out:
        lines.append("agent: ran out of time")
    lines += [f"mentions: the answer does not mention {fact!r}" for fact, said in result.mentions.items() if not said]
    lines += refusals(result)
    if result.stderr:
        lines += ["agent stderr (last lines):", *(f"  {line}" for line in result.stderr.splitlines())]
    if result.diff.get("tables") is not None:
        lines += describe(result.diff).splitlines()
    return "\n".join(lines)


def table(report: Report) -> str:
    """The per-task table `aftersales eval` prints: pass^k, then each failed trial's verdict and failed parts."""
    ks = list(report.overall.pass_hat_k)
    head = f"{'task':44} {'passed':>7}  " + "  ".join(f"pass^{k:<3}" for k in ks) + "  verdicts: failed parts"
    lines = [head]
    for task in report.tasks:
        parts = sorted({part for result in task.results for part in result.failed_parts})
        verdicts = ", ".join(f"{count} {name}" for name, count in task.verdicts.items() if count and name != "pass")
        failing = f"{verdicts}: {', '.join(parts)}" if verdicts else ""
        figures = "  ".join(f"{task.pass_hat_k.get(k, 0.0):<7.3f}" for k in ks)
        lines.append(f"{task.id:44} {task.passed:>3}/{task.trials:<3}  {figures}  {failing}".rstrip())
    overall = report.overall
    figures = "  ".join(f"{value:<7.3f}" for value in overall.pass_hat_k.values())
    lines.append(
        f"{'overall (' + str(overall.tasks) + ' tasks)':44} {overall.passed:>3}/{overall.trials:<3}  {figures}"
    )
    for split, part in report.splits.items():
        shown = "  ".join(f"{part.pass_hat_k.get(k, 0.0):<7.3f}" for k in ks)
        lines.append(f"{split + ' (' + str(part.tasks) + ' tasks)':44} {part.passed:>3}/{part.trials:<3}  {shown}")
    misses = overall.verdicts.get("customer_miss", 0)
    clean = "  ".join(f"{overall.pass_hat_k_without_customer_misses.get(k, 0.0):<7.3f}" for k in ks)
    shown = f"without customer misses ({misses} left out)"
    lines.append(f"{shown:44} {overall.passed:>3}/{overall.trials - misses:<3}  {clean}")
    counts = ", ".join(f"{name} {count}" for name, count in overall.verdicts.items())
    lines.append(f"verdicts: {counts}")
    return "\n".join(lines)

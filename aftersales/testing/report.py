"""What `aftersales eval` writes: report.json (its shape is `Report`, published as report.schema.json), junit.xml."""

import xml.etree.ElementTree as ET
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from aftersales.testing.runner import TrialResult
from aftersales.testing.scoring import FailedPart, expects_change, pass_hat_ks
from aftersales.testing.tasks import Task
from aftersales.worlds.diff import describe

FORMAT = "aftersales-eval-report/1"


class Closed(BaseModel):
    """Report parts admit no other keys."""

    model_config = ConfigDict(extra="forbid")


class Part(Closed):
    """One scored part of a trial."""

    passed: bool
    problems: list[str]


class TrialReport(Closed):
    """One trial."""

    trial: int = Field(ge=1)
    passed: bool
    failed_parts: list[FailedPart]
    outcome: Part = Field(description="The world's diff against the expected outcome.")
    calls: Part = Field(description="The trace against the call rules.")
    mentions: dict[str, bool] = Field(description="Each fact to mention, and whether the agent's stdout holds it.")
    world_hash: str = Field(description="Hash of the world's end state: equal hashes, equal outcome verdicts.")
    exit_code: int | None
    timed_out: bool
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


class TaskReport(Figures):
    """One task's trials."""

    id: str
    title: str
    change: bool = Field(description="Whether the task's right outcome changes the world.")
    end_states: int = Field(ge=0, description="Distinct world hashes its trials ended in.")
    results: list[TrialReport]


class Overall(Figures):
    """Every task together."""

    tasks: int = Field(ge=0)


class Report(Closed):
    """report.json."""

    format: Literal["aftersales-eval-report/1"] = "aftersales-eval-report/1"
    agent: str
    started_at: str
    duration_s: float
    trials_per_task: int = Field(ge=1)
    forms: Literal["world", "client"]
    overall: Overall
    tasks: list[TaskReport]
    skipped: dict[str, str] = Field(
        default_factory=dict, description="Tasks not run, by id, with the reason (a tool this server does not serve)."
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
) -> Report:
    """The report of a run."""
    reports = []
    for task in tasks:
        mine = [result for result in results if result.task.id == task.id]
        passed = sum(result.passed for result in mine)
        reports.append(
            TaskReport(
                id=task.id,
                title=task.title,
                change=expects_change(task.expected),
                trials=len(mine),
                passed=passed,
                pass_rate=passed / len(mine) if mine else 0.0,
                pass_hat_k=pass_hat_ks([(len(mine), passed)]),
                end_states=len({result.score.world_hash for result in mine}),
                results=[_trial(result) for result in mine],
            )
        )
    total, passed = len(results), sum(result.passed for result in results)
    overall = Overall(
        tasks=len(tasks),
        trials=total,
        passed=passed,
        pass_rate=passed / total if total else 0.0,
        pass_hat_k=pass_hat_ks([(task.trials, task.passed) for task in reports]),
    )
    return Report(
        agent=agent,
        started_at=started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        duration_s=round(seconds, 3),
        trials_per_task=trials,
        forms="client" if forms == "client" else "world",
        overall=overall,
        tasks=reports,
        skipped=skipped or {},
    )


def _trial(result: TrialResult) -> TrialReport:
    scored = result.score
    return TrialReport(
        trial=result.trial,
        passed=result.passed,
        failed_parts=result.failed_parts,
        outcome=Part(passed=not scored.outcome, problems=scored.outcome),
        calls=Part(passed=not scored.calls, problems=scored.calls),
        mentions=scored.mentions,
        world_hash=scored.world_hash,
        exit_code=result.exit_code,
        timed_out=result.timed_out,
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
    for task in report.tasks:
        suite = ET.SubElement(
            root,
            "testsuite",
            name=task.id,
            tests=str(task.trials),
            failures=str(task.trials - task.passed),
            time=f"{sum(result.duration_s for result in task.results):.3f}",
        )
        for result in task.results:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=f"aftersales.tasks.{task.id}",
                name=f"trial {result.trial}",
                time=f"{result.duration_s:.3f}",
            )
            if not result.passed:
                failure = ET.SubElement(
                    case,
                    "failure",
                    type=",".join(result.failed_parts),
                    message=f"failed: {', '.join(result.failed_parts)}",
                )
                failure.text = explain(result)
    document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return document


def explain(result: TrialReport) -> str:
    """A failed trial for a person: each part's problems, then the world's diff."""
    lines = [f"{part}: {problem}" for part in ("outcome", "calls") for problem in getattr(result, part).problems]
    if result.timed_out:
        lines.append("agent: ran out of time")
    lines += [f"mentions: the answer does not mention {fact!r}" for fact, said in result.mentions.items() if not said]
    if result.diff.get("tables") is not None:
        lines += describe(result.diff).splitlines()
    return "\n".join(lines)


def table(report: Report) -> str:
    """The per-task table `aftersales eval` prints."""
    ks = list(report.overall.pass_hat_k)
    head = f"{'task':44} {'passed':>7}  " + "  ".join(f"pass^{k:<3}" for k in ks) + "  failed parts"
    lines = [head]
    for task in report.tasks:
        parts = sorted({part for result in task.results for part in result.failed_parts})
        figures = "  ".join(f"{task.pass_hat_k.get(k, 0.0):<7.3f}" for k in ks)
        lines.append(f"{task.id:44} {task.passed:>3}/{task.trials:<3}  {figures}  {', '.join(parts)}")
    overall = report.overall
    figures = "  ".join(f"{value:<7.3f}" for value in overall.pass_hat_k.values())
    lines.append(
        f"{'overall (' + str(overall.tasks) + ' tasks)':44} {overall.passed:>3}/{overall.trials:<3}  {figures}"
    )
    return "\n".join(lines)

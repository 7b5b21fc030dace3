"""Two eval runs compared (`aftersales eval compare BASE_DIR NEW_DIR`): per task the figures before and after.

A task got **worse** when its pass rate in the new run is lower than in the base run by more than the threshold
(default 0: any drop; `--threshold 0.25` lets one trial in four fail by chance), **better** when it rose by more
than the threshold. A task only one run has is `new` or `gone`, neither worse nor better. The trials whose world
hash changed are matched by task and trial number: their agent left the world in another state. (comparison.py
compares two trajectories of one trial; this module compares two whole runs.)
"""

from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError

from aftersales.testing.report import Closed, Figures, Report, TaskReport

FORMAT = "aftersales-eval-comparison/1"
THRESHOLD = 0.0  # how far a task's pass rate may fall before it counts as worse
EPSILON = 1e-9  # pass rates are fractions: 0.75 - 0.5 is not exactly 0.25
Status = Literal["worse", "better", "same", "new", "gone"]


class Side(Closed):
    """One run's figures of a task, or of the whole run."""

    trials: int = Field(ge=0)
    passed: int = Field(ge=0)
    pass_rate: float = Field(ge=0, le=1)
    pass_hat_k: dict[str, float]


class TaskChange(Closed):
    """One task in both runs."""

    id: str
    title: str
    status: Status
    base: Side | None = Field(description="The base run's figures; null when the base run did not have the task.")
    new: Side | None = Field(description="The new run's figures; null when the new run did not have the task.")


class HashChange(Closed):
    """A trial (task and number in both runs) whose world ended in another state."""

    task: str
    trial: int = Field(ge=1)
    base_hash: str
    new_hash: str
    base_verdict: str
    new_verdict: str


class Comparison(Closed):
    """`aftersales eval compare --json`, and comparison.json beside a report made with `eval --compare-to`."""

    format: Literal["aftersales-eval-comparison/1"] = "aftersales-eval-comparison/1"
    base: str = Field(description="The base run's folder.")
    new: str = Field(description="The new run's folder.")
    threshold: float = Field(ge=0, le=1, description="How far a pass rate may fall before the task is worse.")
    overall: dict[Literal["base", "new"], Side]
    tasks: list[TaskChange]
    worse: list[str] = Field(description="The ids of the tasks that got worse: a CI gate fails on any.")
    better: list[str]
    hash_changed: list[HashChange]


def load(folder: Path) -> Report:
    """The report.json of an eval's --out folder; a ValueError naming the file when it is missing or not a report."""
    path = folder / "report.json"
    if not path.is_file():
        raise ValueError(f"{path} does not exist: give the --out folder of an `aftersales eval` run")
    try:
        return Report.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ValueError(f"{path} is not an eval report: {where}: {first['msg']}") from None


def compare(base: Report, new: Report, base_label: str, new_label: str, threshold: float = THRESHOLD) -> Comparison:
    """The new run against the base run, task by task (in the new run's order, then the tasks it no longer has)."""
    if not 0 <= threshold <= 1:
        raise ValueError(f"--threshold must be between 0 and 1 (a pass rate), got {threshold}")
    before = {task.id: task for task in base.tasks}
    after = {task.id: task for task in new.tasks}
    order = [*after, *(task_id for task_id in before if task_id not in after)]
    tasks = [_change(before.get(task_id), after.get(task_id), threshold) for task_id in order]
    return Comparison(
        base=base_label,
        new=new_label,
        threshold=threshold,
        overall={"base": _side(base.overall), "new": _side(new.overall)},
        tasks=tasks,
        worse=[task.id for task in tasks if task.status == "worse"],
        better=[task.id for task in tasks if task.status == "better"],
        hash_changed=_hashes(before, after),
    )


def _change(base: TaskReport | None, new: TaskReport | None, threshold: float) -> TaskChange:
    known = new or base
    assert known is not None  # every id comes from one of the runs
    status: Status
    if base is None:
        status = "new"
    elif new is None:
        status = "gone"
    elif base.pass_rate - new.pass_rate > threshold + EPSILON:
        status = "worse"
    elif new.pass_rate - base.pass_rate > threshold + EPSILON:
        status = "better"
    else:
        status = "same"
    return TaskChange(
        id=known.id,
        title=known.title,
        status=status,
        base=None if base is None else _side(base),
        new=None if new is None else _side(new),
    )


def _side(figures: Figures) -> Side:
    return Side(
        trials=figures.trials, passed=figures.passed, pass_rate=figures.pass_rate, pass_hat_k=figures.pass_hat_k
    )


def _hashes(before: dict[str, TaskReport], after: dict[str, TaskReport]) -> list[HashChange]:
    changed = []
    for task_id, task in after.items():
        earlier = {trial.trial: trial for trial in before[task_id].results} if task_id in before else {}
        for trial in task.results:
            was = earlier.get(trial.trial)
            if was is not None and was.world_hash != trial.world_hash:
                changed.append(
                    HashChange(
                        task=task_id,
                        trial=trial.trial,
                        base_hash=was.world_hash,
                        new_hash=trial.world_hash,
                        base_verdict=was.verdict,
                        new_verdict=trial.verdict,
                    )
                )
    return changed


def text(comparison: Comparison) -> str:
    """The comparison for a person: a line per task, the worse and better ones named, then the changed hashes."""
    ks = sorted({k for task in comparison.tasks for side in (task.base, task.new) if side for k in side.pass_hat_k})
    ks.sort(key=int)
    head = f"{'task':44} {'status':7} {'pass rate':>17}  " + "  ".join(f"{'pass^' + k:>15}" for k in ks)
    lines = [f"{comparison.new} against {comparison.base} (threshold {comparison.threshold:g})", head]
    for task in comparison.tasks:
        figures = "  ".join(f"{_pair(task.base, task.new, k):>15}" for k in ks)
        rate = _pair(task.base, task.new, None)
        lines.append(f"{task.id:44} {task.status:7} {rate:>17}  {figures}".rstrip())
    overall = comparison.overall
    lines.append(f"{'overall':44} {'':7} {_pair(overall['base'], overall['new'], None):>17}")
    lines.append(f"worse: {', '.join(comparison.worse) or 'none'}")
    lines.append(f"better: {', '.join(comparison.better) or 'none'}")
    lines.append(f"trials whose world hash changed: {len(comparison.hash_changed)}")
    lines += [
        f"  {change.task} trial {change.trial}: {change.base_hash[:12]} -> {change.new_hash[:12]}"
        f" ({change.base_verdict} -> {change.new_verdict})"
        for change in comparison.hash_changed
    ]
    return "\n".join(lines)


def _pair(base: Side | None, new: Side | None, k: str | None) -> str:
    """`before -> after` of the pass rate (k None) or of pass^k; `-` where a run has no figure."""

    def one(side: Side | None) -> str:
        if side is None:
            return "-"
        value = side.pass_rate if k is None else side.pass_hat_k.get(k)
        return "-" if value is None else f"{value:.3f}"

    return f"{one(base)} -> {one(new)}"

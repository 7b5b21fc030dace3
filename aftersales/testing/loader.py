"""Reading tasks: every YAML file of a folder, one file, or tasks of the shipped set by id."""

import re
from collections.abc import Callable, Sequence
from pathlib import Path

import yaml
from pydantic import ValidationError

from aftersales.domain.calls import TOOL_NAMES
from aftersales.paths import shipped
from aftersales.testing.lint import Catalogue, table_problems, task_problems
from aftersales.testing.tasks import Task


class TaskError(ValueError):
    """A task file that cannot be used; the message names the file and what to fix, `problems` each (where, what)."""

    def __init__(self, message: str, problems: Sequence[tuple[str, str]] = ()) -> None:
        super().__init__(message)
        self.problems = list(problems)


def shipped_tasks() -> Path:
    """The folder of the tasks shipped with aftersales (seed/tasks)."""
    return shipped("seed") / "tasks"


# libyaml's safe loader parses the shipped set ten times faster than the pure-Python one; same documents, same types.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# A whole-task check joins its problems with "; ", each starting with the place it names ("reference.0: ...").
PLACE = re.compile(r"^[a-z_]+(\.[A-Za-z0-9_]+)*$")
PLACED = re.compile(r"; (?=[a-z_]+(?:\.[A-Za-z0-9_]+)*: )")


def load(selection: str | Path | None = None) -> list[Task]:
    """Tasks from a folder, a file, or a comma-separated list of shipped task ids; the shipped set by default."""
    return [load_file(path) for path in task_files(selection)]


def task_files(selection: str | Path | None = None) -> list[Path]:
    """The task files of a folder, one file, or a comma-separated list of shipped task ids (a file is its id)."""
    if selection is None:
        return _folder(shipped_tasks())
    path = Path(selection)
    if _is(path, Path.is_dir):
        return _folder(path)
    if _is(path, Path.is_file):
        return [path]
    wanted = [name.strip() for name in str(selection).split(",") if name.strip()]
    missing = [name for name in wanted if not (shipped_tasks() / f"{name}.yaml").is_file()]
    if missing:
        raise TaskError(
            f"{', '.join(missing)}: neither a folder, a file nor a shipped task id. Shipped ids are listed by "
            "`aftersales tasks list`."
        )
    return [shipped_tasks() / f"{name}.yaml" for name in wanted]


def lint(selection: str | Path | None, catalogue: Catalogue) -> tuple[list[Task], list[str]]:
    """The tasks that can be read, and every problem of every file, one line each: file, path in it, what to do."""
    tasks, lines = [], []
    for path in task_files(selection):
        try:
            task = parse_file(path)
        except TaskError as error:
            lines += [f"{path}: {where}: {what}" if where else f"{path}: {what}" for where, what in error.problems]
            continue
        tasks.append(task)
        lines += [f"{path}: {where}: {what}" for where, what in task_problems(task, catalogue)]
    return tasks, lines


def checked(selection: str | Path | None, catalogue: Catalogue) -> list[Task]:
    """The tasks, when none has a problem; else a TaskError listing every problem (what `tasks lint` prints)."""
    tasks, lines = lint(selection, catalogue)
    if lines:
        raise TaskError(
            f"{len(lines)} problem(s) in the tasks; nothing was run. Fix each, then run again "
            "(`aftersales tasks lint` lists them):\n" + "\n".join(lines)
        )
    return tasks


def load_file(path: Path) -> Task:
    """One task file, checked against the format and against the world's tables and columns."""
    task = parse_file(path)
    problems = table_problems(task)
    if problems:
        raise TaskError(f"{path}: " + "; ".join(f"{where}: {what}" for where, what in problems))
    return task


def parse_file(path: Path) -> Task:
    """One task file, checked against the format only; a TaskError holds each problem as (where, what)."""
    try:
        document = yaml.load(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER)
        task = Task.model_validate(document)
    except (OSError, yaml.YAMLError) as problem:
        what = f"cannot be read as YAML ({problem})"
        raise TaskError(f"{path}: {what}.", [("", what)]) from None
    except ValidationError as problem:
        found = [part for error in problem.errors() for part in _details(error["loc"], error["msg"])]
        details = "; ".join(f"{where}: {what}" if where else what for where, what in found)
        raise TaskError(f"{path}: not a task ({details}). The format is in docs/tasks.md.", found) from None
    if task.id != path.stem:
        what = f"its id is {task.id!r}; a task file is named after its id ({task.id}.yaml)"
        raise TaskError(f"{path}: {what}.", [("id", what)])
    return task


def _details(location: tuple[int | str, ...], message: str) -> list[tuple[str, str]]:
    """One validation error as (where, what); a whole-task check's message holds one part per place it names."""
    message = message.removeprefix("Value error, ")  # our checks' words, without the library's label
    if location:
        return [(".".join(str(part) for part in location), message)]
    parts = [part.split(": ", 1) for part in PLACED.split(message)]
    return [(part[0], part[1]) if len(part) == 2 and PLACE.match(part[0]) else ("", ": ".join(part)) for part in parts]


def _is(path: Path, kind: Callable[[Path], bool]) -> bool:
    """Whether `path` is a folder (or file); a list of ids may be longer than any file name can be."""
    try:
        return kind(path)
    except OSError:
        return False


def _folder(folder: Path) -> list[Path]:
    files = sorted(folder.glob("*.yaml"))
    if not files:
        raise TaskError(f"{folder}: holds no task (*.yaml).")
    return files


def of_split(tasks: list[Task], split: str | None) -> list[Task]:
    """The tasks of one split (all of them for None); a split holding none of the tasks is a mistake."""
    if split is None:
        return tasks
    chosen = [task for task in tasks if task.split == split]
    if not chosen:
        raise TaskError(f"none of the {len(tasks)} tasks chosen is in split {split!r}: choose others, or drop --split.")
    return chosen


def unserved(task: Task) -> list[str]:
    """Tools the task's reference calls that this server does not serve (the task cannot be run here)."""
    return sorted({step.call for step in task.reference if step.call is not None} - set(TOOL_NAMES))


def runnable(tasks: list[Task]) -> tuple[list[Task], dict[str, str]]:
    """The tasks this server can run, and why each other one cannot."""
    skipped = {
        task.id: f"needs {', '.join(unserved(task))}, which this server does not serve"
        for task in tasks
        if unserved(task)
    }
    return [task for task in tasks if task.id not in skipped], skipped

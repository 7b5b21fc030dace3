"""Reading tasks: every YAML file of a folder, one file, or tasks of the shipped set by id."""

from collections.abc import Callable
from pathlib import Path

import yaml
from pydantic import ValidationError

from aftersales.domain.calls import TOOL_NAMES
from aftersales.paths import shipped
from aftersales.testing.tasks import Task
from aftersales.worlds.storage.rows import business_tables


class TaskError(ValueError):
    """A task file that cannot be used; the message names the file and what to fix."""


def shipped_tasks() -> Path:
    """The folder of the tasks shipped with aftersales (seed/tasks)."""
    return shipped("seed") / "tasks"


# libyaml's safe loader parses the shipped set ten times faster than the pure-Python one; same documents, same types.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load(selection: str | Path | None = None) -> list[Task]:
    """Tasks from a folder, a file, or a comma-separated list of shipped task ids; the shipped set by default."""
    if selection is None:
        return _folder(shipped_tasks())
    path = Path(selection)
    if _is(path, Path.is_dir):
        return _folder(path)
    if _is(path, Path.is_file):
        return [load_file(path)]
    by_id = {task.id: task for task in _folder(shipped_tasks())}
    wanted = [name.strip() for name in str(selection).split(",") if name.strip()]
    missing = [name for name in wanted if name not in by_id]
    if missing:
        raise TaskError(
            f"{', '.join(missing)}: neither a folder, a file nor a shipped task id. Shipped ids are listed by "
            "`aftersales tasks list`."
        )
    return [by_id[name] for name in wanted]


def load_file(path: Path) -> Task:
    """One task file, checked against the format and against the world's tables."""
    try:
        document = yaml.load(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER)
        task = Task.model_validate(document)
    except (OSError, yaml.YAMLError) as problem:
        raise TaskError(f"{path}: cannot be read as YAML ({problem}).") from None
    except ValidationError as problem:
        details = "; ".join(_detail(error["loc"], error["msg"]) for error in problem.errors())
        raise TaskError(f"{path}: not a task ({details}). The format is in docs/tasks.md.") from None
    if task.id != path.stem:
        raise TaskError(f"{path}: its id is {task.id!r}; a task file is named after its id ({task.id}.yaml).")
    unknown = sorted((task.expected.allowed() | set(task.world.rows)) - set(business_tables()))
    if unknown:
        raise TaskError(
            f"{path}: {', '.join(unknown)} is not a table of the world; tables: {', '.join(business_tables())}."
        )
    return task


def _detail(location: tuple[int | str, ...], message: str) -> str:
    """One validation error: where in the document, and what; a whole-task check names its own places."""
    message = message.removeprefix("Value error, ")  # our checks' words, without the library's label
    return f"{'.'.join(str(part) for part in location)}: {message}" if location else message


def _is(path: Path, kind: Callable[[Path], bool]) -> bool:
    """Whether `path` is a folder (or file); a list of ids may be longer than any file name can be."""
    try:
        return kind(path)
    except OSError:
        return False


def _folder(folder: Path) -> list[Task]:
    tasks = [load_file(path) for path in sorted(folder.glob("*.yaml"))]
    if not tasks:
        raise TaskError(f"{folder}: holds no task (*.yaml).")
    return tasks


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

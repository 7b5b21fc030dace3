"""The published schemas of the testing formats, generated from the models so the two cannot drift.

`python -m aftersales.testing.schemas` writes them; a test checks that the committed files equal what the models
generate. junit.xsd is written by hand (the JUnit format has no model here) and validated against in the tests.
"""

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from aftersales.testing.brief import Brief, ConversationBrief
from aftersales.testing.report import Report
from aftersales.testing.tasks import Task
from aftersales.testing.trajectory_lines import TrajectoryLine

FOLDER = Path(__file__).parent
MODELS: dict[str, tuple[type[BaseModel], str]] = {
    "task.schema.json": (Task, "An aftersales agent task (a YAML file in seed/tasks)."),
    "brief.schema.json": (Brief, "The customer brief an agent reads from AFTERSALES_TASK_FILE."),
    "conversation-brief.schema.json": (
        ConversationBrief,
        "The brief of a conversation trial (AFTERSALES_TASK_FILE with --mode conversation): the opening line only.",
    ),
    "report.schema.json": (Report, "report.json written by `aftersales eval`."),
    "trajectory.schema.json": (TrajectoryLine, "One line of a trajectory file (a world's trace, JSON lines)."),
}


def generated(name: str) -> dict[str, Any]:
    """The schema `name` as the models define it today."""
    model, title = MODELS[name]
    schema = model.model_json_schema(by_alias=True, mode="validation")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": name, "description": title, **schema}


def text(name: str) -> str:
    """The schema as written to its file."""
    return json.dumps(generated(name), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def load(name: str) -> dict[str, Any]:
    """A published schema, read from its file."""
    document: dict[str, Any] = json.loads((FOLDER / name).read_text(encoding="utf-8"))
    return document


def write() -> list[Path]:
    """Write every generated schema beside this module."""
    written = []
    for name in MODELS:
        path = FOLDER / name
        path.write_text(text(name), encoding="utf-8")
        written.append(path)
    return written

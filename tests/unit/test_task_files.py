"""The task format: the shipped tasks load and follow the published schema, which the models generate."""

from pathlib import Path

import jsonschema
import pytest
import yaml

from aftersales.testing import schemas
from aftersales.testing.loader import TaskError, load, load_file, runnable, shipped_tasks
from aftersales.testing.reference import resolve
from aftersales.testing.scoring import expects_change

TASK = """\
id: {id}
title: A question about a ticket
customer:
  opening: Where is my return?
  knows: {{ticket_id: T-2026-0325}}
  story: They sent nothing yet.
  wants: {{action: check_ticket}}
expected:
  tables: {{{table}: {{}}}}
reference:
  - call: after_sales_query_ticket
    arguments: {{ticket_id: T-2026-0325}}
"""


@pytest.mark.parametrize("name", sorted(schemas.MODELS))
def test_each_published_schema_is_what_its_model_generates(name):
    assert (schemas.FOLDER / name).read_text(encoding="utf-8") == schemas.text(name), (
        f"{name} is stale: run python -m aftersales.testing.schemas"
    )


def test_at_least_forty_shipped_tasks_run_on_this_server_with_unique_ids_and_both_kinds_of_outcome():
    tasks, skipped = runnable(load())
    assert len(tasks) >= 40, skipped
    assert len({task.id for task in tasks}) == len(tasks)
    changes = [task.id for task in tasks if expects_change(task.expected)]
    assert 15 <= len(changes) < len(tasks)


def test_every_shipped_task_file_follows_the_published_task_schema():
    validator = jsonschema.Draft202012Validator(schemas.load("task.schema.json"))
    for path in sorted(shipped_tasks().glob("*.yaml")):
        validator.validate(yaml.safe_load(path.read_text(encoding="utf-8")))


def test_a_task_naming_a_table_the_world_does_not_have_is_refused_with_its_file(tmp_path: Path):
    path = tmp_path / "bad-table.yaml"
    path.write_text(TASK.format(id="bad-table", table="tickets_typo"), encoding="utf-8")
    with pytest.raises(TaskError, match=r"bad-table.yaml: tickets_typo is not a table of the world"):
        load_file(path)


def test_a_task_file_is_named_after_its_id(tmp_path: Path):
    path = tmp_path / "other-name.yaml"
    path.write_text(TASK.format(id="a-question", table="tickets"), encoding="utf-8")
    with pytest.raises(TaskError, match=r"a task file is named after its id \(a-question.yaml\)"):
        load_file(path)


def test_an_unknown_key_in_a_task_is_a_mistake_not_an_extension(tmp_path: Path):
    path = tmp_path / "a-question.yaml"
    path.write_text(TASK.format(id="a-question", table="tickets") + "expectd: {}\n", encoding="utf-8")
    with pytest.raises(TaskError, match=r"expectd: Extra inputs are not permitted"):
        load_file(path)


def test_tasks_are_chosen_by_folder_file_or_shipped_ids(tmp_path: Path):
    (tmp_path / "a-question.yaml").write_text(TASK.format(id="a-question", table="tickets"), encoding="utf-8")
    assert [task.id for task in load(tmp_path)] == ["a-question"]
    assert [task.id for task in load("status-rejected,status-refunding")] == ["status-rejected", "status-refunding"]
    many = [task.id for task in load()][:12]
    assert [task.id for task in load(",".join(many))] == many  # longer than a file name may be
    with pytest.raises(TaskError, match="no-such-task: neither a folder"):
        load("status-rejected,no-such-task")


def test_a_reference_argument_names_a_field_of_an_earlier_saved_result_keeping_its_type():
    saved = {"estimate": {"quote_id": "q-1", "total": 9900, "items": [{"sku": "APP-006"}]}}
    assert resolve({"quote_id": "${estimate.quote_id}", "n": "${estimate.total}"}, saved) == {
        "quote_id": "q-1",
        "n": 9900,
    }
    assert resolve(["${estimate.items.0.sku}", "plain ${text}"], saved) == ["APP-006", "plain ${text}"]
    with pytest.raises(KeyError, match="names a result no earlier step saved"):
        resolve("${quote.quote_id}", saved)

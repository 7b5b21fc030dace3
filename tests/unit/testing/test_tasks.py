"""The task format: the shipped tasks load and follow the published schema, which the models generate."""

from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest
import yaml

from aftersales.testing import schemas
from aftersales.testing.loader import TaskError, load, load_file, of_split, runnable, shipped_tasks
from aftersales.testing.reference import resolve
from aftersales.testing.scoring import expects_change
from aftersales.testing.tasks import Task

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
    with pytest.raises(TaskError, match=r"bad-table.yaml: expected.tables.tickets_typo: 'tickets_typo' is not a table"):
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


def conversation_tasks() -> list[Task]:
    return [task for task in load() if "conversation" in task.tags]


def test_at_least_thirty_shipped_conversation_tasks_each_need_two_facts_asked_of_the_customer():
    tasks = conversation_tasks()
    assert len(tasks) >= 30
    thin = [task.id for task in tasks if task.conversation is None or len(task.conversation.must_ask) < 2]
    assert thin == []


def test_every_shipped_conversation_task_that_opens_a_ticket_tells_its_number():
    untold = [
        task.id
        for task in conversation_tasks()
        if task.expected.tables.get("tickets") is not None
        and task.expected.tables["tickets"].added
        and (task.conversation is None or "ticket_id" not in task.conversation.communicate)
    ]
    assert untold == []


KINDS: dict[str, Callable[[Task], bool]] = {
    "a wrong order number first": lambda task: "order_id" in task.customer.mistakes,
    "a change of mind about the refund method": lambda task: "refund_method" in task.customer.changes_mind,
    "a refusal told with nothing written": lambda task: (
        task.conversation is not None
        and "refusal" in task.conversation.communicate
        and not expects_change(task.expected)
    ),
    "only a phone number": lambda task: (
        "phone" in task.customer.knows
        and not {"order_id", "email", "customer_id", "ticket_id"} & set(task.customer.knows)
        and any(step.call == "after_sales_find_orders" and "phone" in step.arguments for step in task.reference)
    ),
    "the same product on two orders": lambda task: (
        "same_product" in task.tags
        and "order_id" not in task.customer.knows
        and task.conversation is not None
        and len(task.conversation.must_ask) >= 2
    ),
    "a customer who stops answering before anything can be written": lambda task: (
        task.customer.stops_after is not None and not expects_change(task.expected)
    ),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_shipped_conversation_tasks_hold_each_required_kind_of_customer(kind: str):
    assert [task.id for task in conversation_tasks() if KINDS[kind](task)], f"no conversation task has {kind}"


def test_at_least_a_third_of_the_shipped_tasks_are_held_out_and_every_file_names_its_split():
    tasks = load()
    held = [task for task in tasks if task.split == "held_out"]
    assert 3 * len(held) >= len(tasks) and len(held) < len(tasks)
    unnamed = [path.name for path in sorted(shipped_tasks().glob("*.yaml")) if "\nsplit: " not in path.read_text()]
    assert unnamed == []


def test_a_split_chooses_its_tasks_and_one_holding_none_of_them_is_refused():
    tasks = load()
    assert {task.split for task in of_split(tasks, "held_out")} == {"held_out"}
    assert of_split(tasks, None) == tasks
    dev_only = of_split(tasks, "dev")
    with pytest.raises(TaskError, match=f"none of the {len(dev_only)} tasks chosen is in split 'held_out'"):
        of_split(dev_only, "held_out")

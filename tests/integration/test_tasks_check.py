"""`aftersales tasks check`: every shipped reference solution reaches its expected outcome, on both databases."""

import shutil
import tempfile
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml

from aftersales.cli.main import main
from aftersales.testing.check import check_task, explain
from aftersales.testing.conversation_rules import conversation_problems
from aftersales.testing.loader import shipped_tasks
from aftersales.testing.reference import replay
from aftersales.testing.tasks import Task
from tests.support.harness import checking_host, every_shipped_reference_passes
from tests.support.worlds import next_number


@pytest.fixture
def host(backend: str, request: pytest.FixtureRequest, tmp_path: Path):
    """A harness on the chosen backend (on PostgreSQL, its control database is the test's seeded copy)."""
    with checking_host(backend, request, tmp_path) as started:
        yield started


# The whole set runs here on SQLite and in test_tasks_check_on_postgresql.py on PostgreSQL: two files, so the two
# long runs go to two workers of `make test` at once.
@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_every_shipped_reference_solution_reaches_its_outcome_and_obeys_its_rules(host):
    every_shipped_reference_passes(host)


def test_tasks_check_exits_non_zero_and_names_the_part_a_wrong_task_misses(tmp_path: Path, capsys, baseline):
    document = yaml.safe_load((shipped_tasks() / "refund-laptop-vip-review.yaml").read_text(encoding="utf-8"))
    document["expected"]["tables"]["tickets"]["added"][0]["row"]["status"] = "approved"  # the laptop is reviewed
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "refund-laptop-vip-review.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    assert main(["tasks", "check", "--tasks", str(folder)]) == 1
    out, new = capsys.readouterr().out, next_number(baseline)
    assert "FAIL  refund-laptop-vip-review" in out
    assert (
        f"outcome: tickets: no added row matches; closest {new}: status is 'under_review', expected 'approved'" in out
    )
    assert f"+ {new}" in out  # the diff is shown


def test_tasks_lint_exits_0_on_the_shipped_tasks_and_1_printing_each_problem_on_its_line(tmp_path: Path, capsys):
    assert main(["tasks", "lint"]) == 0
    assert capsys.readouterr().out.endswith(" task(s): no problems\n")
    path = wrong_task(tmp_path)
    assert main(["tasks", "lint", "--tasks", str(path)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{path}: story: 'status_rejected' is not a story the baseline has: did you mean ticket_rejected?",
        f"{path}: reference.0.call: 'after_sales_future_tool' is not a tool this server serves: tools: "
        "after_sales_query_ticket, after_sales_estimate_refund, after_sales_create_ticket, after_sales_find_orders, "
        "after_sales_get_order, after_sales_list_tickets, after_sales_cancel_ticket",
    ]


def test_tasks_check_and_eval_refuse_a_task_with_problems_before_any_world_listing_every_problem(
    tmp_path: Path, capsys
):
    path = wrong_task(tmp_path)
    assert main(["tasks", "check", "--tasks", str(path)]) == 2
    assert main(["eval", "--agent", "true", "--tasks", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err  # each command's refusal: the count, then each problem on its line
    assert err.count("2 problem(s) in the tasks; nothing was run") == 2
    assert err.count(f"{path}: story: 'status_rejected'") == err.count(f"{path}: reference.0.call: ") == 2
    assert not (tmp_path / "out").exists()


def wrong_task(folder: Path) -> Path:
    """A task naming a story and a tool that do not exist."""
    document = yaml.safe_load((shipped_tasks() / "status-rejected.yaml").read_text(encoding="utf-8"))
    document |= {"id": "two-mistakes", "story": "status_rejected"}
    document["reference"] = [{"call": "after_sales_future_tool", "arguments": {}}]
    path = folder / "two-mistakes.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return path


def test_a_task_whose_reference_step_fails_fails_alone_with_that_steps_tool_error(tmp_path: Path, capsys):
    document = yaml.safe_load((shipped_tasks() / "refund-tshirts-store-credit.yaml").read_text(encoding="utf-8"))
    document["id"] = "estimate-on-a-missing-line"
    document["reference"][1]["arguments"]["line_no"] = 2  # refused: the order has one line; the create needs its quote
    (tmp_path / "estimate-on-a-missing-line.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    shutil.copy(shipped_tasks() / "status-rejected.yaml", tmp_path)
    assert main(["tasks", "check", "--tasks", str(tmp_path), "--mode", "brief"]) == 1
    out = capsys.readouterr().out
    refused = "Order O-2026-001410 has no line 2. Its lines are: line 1: Cotton T-Shirt 3-Pack x1."
    assert f"FAIL  {'estimate-on-a-missing-line':44} brief" in out
    assert f"reference step 2 (after_sales_estimate_refund) came to tool_error, expected ok: {refused}" in out
    assert (
        "reference step 3 (after_sales_create_ticket) not run: ${estimate.quote_id} names the result of reference "
        f"step 2 (after_sales_estimate_refund), which came to tool_error: {refused}"
    ) in out
    assert f"pass  {'status-rejected':44} brief" in out
    assert "1 of 2 reference replays (brief mode) reach their expected outcome" in out
    assert "Traceback" not in out


def test_say_steps_are_skipped_in_brief_mode_and_in_a_conversation_tell_what_the_real_calls_produced(host):
    document = yaml.safe_load((shipped_tasks() / "refund-tshirts-store-credit.yaml").read_text(encoding="utf-8"))
    estimate, create = [step for step in document["reference"] if "call" in step]
    document["conversation"] = {"must_ask": ["order_id"], "communicate": ["ticket_id", "refund_amount"]}
    document["reference"] = [
        {"say": "Which order is it, and which line?"},
        estimate,
        {"say": "You would get ${estimate.total_display} back as store credit."},
        {**create, "save": "created"},
        {"say": "Done: your ticket is ${created.ticket.ticket_id}."},
    ]
    task = Task.model_validate(document)

    brief = check_task(host, task)
    assert brief.passed, explain(brief)
    assert [step.outcome for step in brief.steps] == ["skipped", "ok", "skipped", "ok", "skipped"]

    trial = host.open_trial(task)
    said: list[tuple[int, str]] = []  # each agent turn, with how many calls the world had traced before it

    async def say(text: str) -> str:
        said.append((len(host.trace(trial)), text))
        return "O-2026-001410, line 1." if len(said) == 1 else "Thanks."

    try:
        steps = anyio.run(replay, task, trial.url, trial.token, say)
        calls = host.trace(trial)
    finally:
        host.close_trial(trial)
    assert [step.outcome for step in steps] == ["said", "ok", "said", "ok", "said"]
    ticket = calls[-1]["result"]["ticket"]["ticket_id"]
    assert said[2][1] == f"Done: your ticket is {ticket}."
    assert conversation_problems(task, conversation(calls, said, revealed=("order_id",))) == []
    untold = conversation(calls, said[:2], revealed=("order_id",))
    made = next(entry for entry in untold if (entry.get("result") or {}).get("ticket"))
    assert conversation_problems(task, untold) == [
        f"communicate: no agent turn after call #{made['seq']} (after_sales_create_ticket) told the ticket number, "
        f"{ticket}"
    ]


def conversation(
    calls: list[dict[str, Any]], said: list[tuple[int, str]], revealed: tuple[str, ...]
) -> list[dict[str, Any]]:
    """The world's calls with turns in the shared design's shape between them, renumbered as one timeline.

    Each agent turn is followed by the customer's reply; the first reply reveals `revealed`.
    """
    placed: list[tuple[int, int, dict[str, Any]]] = [(int(entry["seq"]), 0, entry) for entry in calls]
    for number, (before, text) in enumerate(said):
        agent = {"type": "turn", "speaker": "agent", "text": text, "revealed": []}
        customer = {
            "type": "turn",
            "speaker": "customer",
            "text": "…",
            "revealed": list(revealed) if number == 0 else [],
        }
        placed += [(before, 1 + 2 * number, agent), (before, 2 + 2 * number, customer)]
    ordered = [entry for _, _, entry in sorted(placed, key=lambda item: item[:2])]
    return [{**entry, "seq": seq} for seq, entry in enumerate(ordered, 1)]


def test_tasks_check_and_eval_leave_no_folder_of_theirs_in_the_temporary_directory(tmp_path: Path, monkeypatch):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    assert main(["tasks", "check", "--tasks", "status-rejected", "--mode", "brief"]) == 0
    out = tmp_path / "out"
    assert main(["eval", "--agent", "true", "--tasks", "status-rejected", "--out", str(out)]) == 1
    assert list(scratch.iterdir()) == []

"""`aftersales tasks check`: every shipped reference solution reaches its expected outcome, on both databases."""

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


def test_tasks_check_skips_a_task_whose_tools_this_server_does_not_serve_and_says_so(tmp_path: Path, capsys):
    document = yaml.safe_load((shipped_tasks() / "status-rejected.yaml").read_text(encoding="utf-8"))
    document["id"] = "needs-a-future-tool"
    document["reference"] = [{"call": "after_sales_future_tool", "arguments": {}}]
    (tmp_path / "needs-a-future-tool.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    assert main(["tasks", "check", "--tasks", str(tmp_path / "needs-a-future-tool.yaml")]) == 0
    out = capsys.readouterr().out
    for mode in ("brief", "conversation"):
        assert f"skip  {'needs-a-future-tool':44} {mode}  (needs after_sales_future_tool, which this server does" in out


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

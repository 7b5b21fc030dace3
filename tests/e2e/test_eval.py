"""`aftersales eval` with the example agents: pass^k of a right agent, each mistake caught by name, the files valid.

Agents run as child processes against the harness's server over HTTP, exactly as a team's agent would.
"""

import json
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import jsonschema
import pytest
import xmlschema

from aftersales.testing import schemas
from aftersales.testing.loader import load
from aftersales.testing.scoring import expects_change
from tests.support import evals
from tests.support.evals import AGENT, NOTHING, failed

# A change and a no-change task of every family: forms accepted, declined and cancelled, a timeout, an expired
# quote, a repair after the window, an exchange, refusals, a status question.
TASKS = [
    "refund-tshirts-store-credit",
    "refund-tshirts-method-declined",
    "refund-laptop-confirmation-cancelled",
    "retry-after-timeout-same-key",
    "quote-expired-clock-moved",
    "repair-laptop-past-window",
    "exchange-running-shoes",
    "refund-order-cancelled",
    "repair-rc-car-out-of-warranty",
    "status-awaiting-return",
]


def run(out: Path, agent: str, *options: str, tasks: list[str] = TASKS) -> tuple[int, dict[str, Any]]:
    """Run the eval command on `tasks` (a change and a no-change task of every family unless told)."""
    return evals.run(out, agent, *options, tasks=tasks)


def test_the_scripted_agent_passes_every_trial_with_pass_hat_4_of_one_and_valid_files(tmp_path: Path):
    # Four trials each of a form, a lost response, an expired quote, a repair and a status question.
    chosen = [TASKS[0], TASKS[3], TASKS[4], TASKS[5], TASKS[9]]
    code, report = run(tmp_path, AGENT, "--trials", "4", tasks=chosen)
    assert code == 0, failed(report)
    assert report["overall"]["pass_hat_k"] == {"1": 1.0, "2": 1.0, "3": 1.0, "4": 1.0}
    assert all(task["end_states"] == 1 for task in report["tasks"])  # identical behaviour, identical world hash
    jsonschema.Draft202012Validator(schemas.load("report.schema.json")).validate(report)
    xmlschema.XMLSchema(str(schemas.FOLDER / "junit.xsd")).validate(str(tmp_path / "junit.xml"))
    brief = json.loads((tmp_path / "briefs" / "refund-tshirts-store-credit.1.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schemas.load("brief.schema.json")).validate(brief)
    assert "expected" not in json.dumps(brief) and "reference" not in brief
    result = next(task for task in report["tasks"] if task["id"] == "quote-expired-clock-moved")["results"][0]
    assert result["answer"].startswith("created: ticket T-") and result["stderr"] == ""
    # the create with the expired quote was refused, and the agent saw why
    assert [(error["tool"], error["kind"]) for error in result["tool_errors"]] == [
        ("after_sales_create_ticket", "expired")
    ]
    moved = [entry.get("advanced") for entry in evals.trajectory(tmp_path, "quote-expired-clock-moved")]
    assert "40m" in moved  # the clock the task moved, on the call it followed
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert page.count('class="trial pass"') == 20 and "the task moved the world&#x27;s clock 40m" in page


def test_a_trajectory_holds_every_call_with_its_result_and_the_form_answers(tmp_path: Path):
    run(tmp_path, AGENT, tasks=["retry-after-timeout-same-key"])
    lines = (tmp_path / "trajectories" / "retry-after-timeout-same-key.1.jsonl").read_text(encoding="utf-8")
    trace = [json.loads(line) for line in lines.splitlines()]
    validator = jsonschema.Draft202012Validator(schemas.load("trajectory.schema.json"))
    for entry in trace:
        validator.validate(entry)
    assert [(e["tool"], e["outcome"], e.get("fault")) for e in trace] == [
        ("after_sales_estimate_refund", "ok", None),
        ("after_sales_create_ticket", "protocol_error", "response_lost"),  # it took effect; the agent saw an error
        ("after_sales_create_ticket", "ok", None),
    ]
    first, retry = trace[1], trace[2]
    assert first["arguments"]["idempotency_key"] == retry["arguments"]["idempotency_key"]
    assert retry["result"]["outcome"] == "replayed" and retry["replayed"]
    (asked,) = first["rounds"]
    assert asked["answered_by"] == "script" and asked["via"] == "input_required"
    assert [question["key"] for question in asked["questions"]] == ["after_sales_create_ticket:refund_method"]
    assert asked["answers"] == [
        {
            "key": "after_sales_create_ticket:refund_method",
            "action": "accept",
            "content": {"refund_method": "store_credit"},
        }
    ]
    assert trace[0]["result"]["quote_id"] == first["arguments"]["quote_id"]


@pytest.mark.parametrize(
    ("mistake", "caught"),
    [
        (
            "wrong-kind",
            {
                "refund-tshirts-store-credit": ["outcome"],
                "retry-after-timeout-same-key": ["outcome"],
                "quote-expired-clock-moved": ["outcome"],
            },
        ),
        (
            "double-create",
            {
                "refund-tshirts-store-credit": ["calls"],
                "retry-after-timeout-same-key": ["calls"],
                "quote-expired-clock-moved": ["calls"],
                "repair-laptop-past-window": ["calls"],
                "exchange-running-shoes": ["calls"],
                "refund-tshirts-method-declined": ["calls"],
                "refund-laptop-confirmation-cancelled": ["calls"],
            },
        ),
        (
            "ignore-decline",
            {"refund-tshirts-method-declined": ["calls", "outcome"], "refund-laptop-confirmation-cancelled": ["calls"]},
        ),
    ],
)
def test_each_deliberate_mistake_fails_the_tasks_it_should_with_the_part_named(tmp_path: Path, mistake, caught):
    code, report = run(tmp_path, f"{AGENT} --mistake {mistake}")
    assert code == 1
    assert failed(report) == caught
    suites = ElementTree.parse(tmp_path / "junit.xml").getroot()
    failures = {
        suite.get("name"): sorted(suite.find("testcase/failure").get("type").split(","))
        for suite in suites
        if suite.find("testcase/failure") is not None
    }
    assert failures == caught


def test_the_do_nothing_agent_fails_every_change_task_of_the_shipped_set_and_passes_only_no_change_ones(
    tmp_path: Path,
):
    everything = [task.id for task in load()]
    code, report = run(tmp_path, NOTHING, tasks=everything)
    assert code == 1
    change = {task.id for task in load() if expects_change(task.expected)}
    passed = {task["id"] for task in report["tasks"] if task["passed"]}
    assert len(change) >= 20 and not passed & change
    # The no-change tasks it passes are those with no call the agent must make.
    assert "repair-rc-car-out-of-warranty" in passed and "status-rejected" not in passed


def test_an_agent_that_runs_out_of_time_is_stopped_and_fails_as_the_agent(tmp_path: Path):
    sleeper = f"{sys.executable} -c 'import time; time.sleep(60)'"
    code, report = run(tmp_path, sleeper, "--timeout", "1", tasks=["status-rejected"])
    result = report["tasks"][0]["results"][0]
    assert code == 1 and result["timed_out"] and "agent" in result["failed_parts"]
    assert result["duration_s"] < 30


def test_with_forms_left_to_the_client_the_agent_answers_the_round_itself(tmp_path: Path):
    code, report = run(tmp_path, AGENT, "--forms", "client", tasks=["refund-laptop-vip-review"])
    assert code == 0, failed(report)
    lines = (tmp_path / "trajectories" / "refund-laptop-vip-review.1.jsonl").read_text(encoding="utf-8")
    creates = [json.loads(line) for line in lines.splitlines() if "create_ticket" in line]
    assert [(entry["outcome"], entry["resumes"]) for entry in creates] == [
        ("input_required", None),
        ("ok", creates[0]["seq"]),
    ]
    answered = creates[1]["rounds"][0]
    keys = {"after_sales_create_ticket:refund_method", "after_sales_create_ticket:confirm"}
    assert answered["answered_by"] == "client"
    assert {answer["key"] for answer in answered["answers"]} == keys
    assert {question["key"] for question in answered["questions"]} == keys

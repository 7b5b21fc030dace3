"""The eval report: each trial's verdict, counts per verdict and pass^k without customer misses, in every output."""

from datetime import UTC, datetime
from xml.etree import ElementTree

from aftersales.testing import report
from aftersales.testing.runner import TrialResult
from aftersales.testing.scoring import Score
from tests.support.tasks import a_task

TASK = a_task()
GOOD = Score(outcome=[], calls=[], world_hash="h", diff={})
BAD = Score(outcome=["tickets: no added row matches"], calls=[], world_hash="g", diff={})


def result(number: int, scored: Score, missed: bool = False) -> TrialResult:
    misses = ("turn #3: the customer could not map the agent's message to anything",) if missed else ()
    return TrialResult(TASK, number, scored, 0, False, 0.1, f"t/{number}.jsonl", "", misses)


def test_a_customer_miss_is_its_own_verdict_and_left_out_of_the_second_pass_hat_k():
    results = [result(1, GOOD), result(2, BAD, missed=True), result(3, BAD), result(4, GOOD)]
    built = report.build(results, [TASK], "bot", "world", 4, datetime(2026, 1, 1, tzinfo=UTC), 1.0, mode="conversation")
    assert [trial.verdict for trial in built.tasks[0].results] == ["pass", "customer_miss", "agent", "pass"]
    assert built.overall.verdicts == {"pass": 2, "agent": 1, "customer_miss": 1, "timeout": 0, "infrastructure": 0}
    assert built.overall.pass_hat_k["1"] == 0.5
    assert built.overall.pass_hat_k_without_customer_misses == {"1": 2 / 3, "2": 1 / 3, "3": 0.0}
    printed = report.table(built)
    assert "1 agent, 1 customer_miss: outcome" in printed
    assert "without customer misses (1 left out)" in printed and "0.667" in printed
    root = ElementTree.fromstring(report.junit(built))
    overall = {item.get("name"): item.get("value") for item in root.find("properties")}
    assert overall["verdict.customer_miss"] == "1" and overall["pass^1 without customer misses"] == "0.666667"
    failure = root.findall("testsuite/testcase")[1].find("failure")
    assert failure.get("message") == "customer_miss: failed: outcome" and failure.get("type") == "outcome"


def test_each_split_run_gets_its_own_pass_hat_k_in_the_report_the_junit_file_and_the_table():
    held = a_task(id="held-question", split="held_out")
    results = [result(1, GOOD), result(2, GOOD)] + [
        TrialResult(held, number, scored, 0, False, 0.1, f"h/{number}.jsonl", "")
        for number, scored in ((1, GOOD), (2, BAD))
    ]
    built = report.build(results, [TASK, held], "bot", "world", 2, datetime(2026, 1, 1, tzinfo=UTC), 1.0)
    assert [task.split for task in built.tasks] == ["dev", "held_out"]
    assert {split: figures.pass_hat_k for split, figures in built.splits.items()} == {
        "dev": {"1": 1.0, "2": 1.0},
        "held_out": {"1": 0.5, "2": 0.0},
    }
    assert built.splits["held_out"].tasks == 1 and built.overall.pass_hat_k == {"1": 0.75, "2": 0.5}
    root = ElementTree.fromstring(report.junit(built))
    overall = {item.get("name"): item.get("value") for item in root.find("properties")}
    assert overall["held_out pass^1"] == "0.500000" and overall["dev pass^2"] == "1.000000"
    suites = {
        suite.get("name"): suite.find("properties/property[@name='split']").get("value")
        for suite in root.findall("testsuite")
    }
    assert suites == {"no-change": "dev", "held-question": "held_out"}
    lines = report.table(built).splitlines()
    assert any(line.startswith("held_out (1 tasks)") and "0.500" in line for line in lines)

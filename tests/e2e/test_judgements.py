"""Diagnostic judgements: reported beside the verdict, scored only when asked, with the judge's spend in report.json.

The judge is a deterministic stand-in (tests.support.judges:said); no model is reached.
"""

from pathlib import Path

import jsonschema
import pytest
import yaml

from aftersales.cli.main import main
from aftersales.testing import schemas
from aftersales.testing.loader import load
from aftersales.testing.report import TrialReport, explain
from tests.support.evals import AGENT, run

JUDGE = "function:tests.support.judges:said"
HOLDS, FAILS = 'the agent said "sorry"', 'the agent said "tomorrow"'


@pytest.fixture
def task_file(tmp_path: Path) -> Path:
    """A shipped conversation task with two judgements: one its agent's words meet, one they do not."""
    task = load("conv-book-past-window-refused")[0].model_dump(mode="json", exclude_defaults=True)
    path = tmp_path / "conv-book-past-window-refused.yaml"
    path.write_text(yaml.safe_dump(task | {"judgements": [HOLDS, FAILS]}, sort_keys=False), encoding="utf-8")
    return path


def judged(report: dict) -> list[dict]:
    [task] = report["tasks"]
    [trial] = task["results"]
    return trial["judgements"]


def test_without_a_judge_each_judgement_is_listed_as_not_judged_and_the_trial_passes(tmp_path: Path, task_file):
    code, report = run(tmp_path / "out", AGENT, "--mode", "conversation", tasks=[str(task_file)])
    assert code == 0
    assert [(j["assertion"], j["outcome"]) for j in judged(report)] == [(HOLDS, "not_judged"), (FAILS, "not_judged")]
    assert report["judge"] is None and report["judge_usage"] is None


def test_a_judge_decides_each_judgement_with_its_reasoning_and_spend_and_the_verdict_does_not_change(
    tmp_path: Path, task_file
):
    code, report = run(tmp_path / "out", AGENT, "--mode", "conversation", "--judge", JUDGE, tasks=[str(task_file)])
    assert code == 0  # a failing judgement is reported, not scored
    jsonschema.Draft202012Validator(schemas.load("report.schema.json")).validate(report)
    holds, fails = judged(report)
    assert (holds["outcome"], fails["outcome"]) == ("holds", "fails")
    assert holds["reasoning"].endswith("says it.") and fails["reasoning"] == "No agent turn says it."
    assert report["judge"] == JUDGE and report["judge_usage"]["requests"] == 2
    assert report["judge_usage"]["input_tokens"] == holds["usage"]["input_tokens"] + fails["usage"]["input_tokens"]


def test_with_score_judgements_a_failing_judgement_fails_the_trial_and_says_why(tmp_path: Path, task_file):
    options = ("--mode", "conversation", "--judge", JUDGE, "--score-judgements")
    code, report = run(tmp_path / "out", AGENT, *options, tasks=[str(task_file)])
    [trial] = report["tasks"][0]["results"]
    assert code == 1 and trial["failed_parts"] == ["judgements"] and trial["verdict"] == "agent"
    assert f"judgement fails: {FAILS} (No agent turn says it.)" in explain(TrialReport.model_validate(trial))


def test_scoring_judgements_without_a_judge_is_refused_in_one_line(
    tmp_path: Path, task_file, capsys: pytest.CaptureFixture[str]
):
    words = ["eval", "--agent", "true", "--tasks", str(task_file), "--score-judgements", "--out", str(tmp_path / "o")]
    assert main(words) == 2
    assert capsys.readouterr().err.strip() == (
        "aftersales: --score-judgements needs a judge: add --judge MODEL (for example --judge openai:gpt-4.1)"
    )

"""`aftersales eval compare BASE_DIR NEW_DIR`: per task before and after, worse and better, changed world hashes."""

import json
import re
from pathlib import Path

import pytest

from aftersales.cli.main import main
from tests.support.reports import a_run


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A base run, and a new run in which the passing task fails and the refused one ends in another state."""
    base, new = tmp_path_factory.mktemp("base"), tmp_path_factory.mktemp("new")
    a_run(base)
    a_run(new, hashes={"refund-refused": "sha256:eeee"}, failing={"refund-passes"})
    return base, new


def test_a_task_whose_pass_rate_fell_is_worse_and_fails_the_gate(runs, capsys):
    base, new = runs
    assert main(["eval", "compare", str(base), str(new), "--json"]) == 1
    compared = json.loads(capsys.readouterr().out)
    assert compared["format"] == "aftersales-eval-comparison/1" and compared["threshold"] == 0
    assert compared["worse"] == ["refund-passes"] and compared["better"] == []
    first = compared["tasks"][0]
    assert first["status"] == "worse" and first["base"]["pass_rate"] == 1 and first["new"]["pass_rate"] == 0
    assert first["base"]["pass_hat_k"] == {"1": 1.0} and first["new"]["pass_hat_k"] == {"1": 0.0}
    assert [task["status"] for task in compared["tasks"][1:]] == ["same", "same", "same"]
    changed = [(change["task"], change["trial"], change["new_hash"]) for change in compared["hash_changed"]]
    assert changed == [("refund-refused", 1, "sha256:eeee")]
    assert compared["overall"]["base"]["passed"] == 1 and compared["overall"]["new"]["passed"] == 0


def test_the_other_way_round_the_task_is_better_and_the_gate_passes(runs, capsys):
    base, new = runs
    assert main(["eval", "compare", str(new), str(base)]) == 0
    printed = capsys.readouterr().out
    assert re.search(r"^refund-passes +better +0\.000 -> 1\.000 +0\.000 -> 1\.000$", printed, re.MULTILINE)
    assert "worse: none" in printed and "better: refund-passes" in printed
    assert "trials whose world hash changed: 1" in printed and "refund-refused trial 1: sha256:eeee" in printed


def test_a_threshold_lets_a_pass_rate_fall_that_far_and_a_folder_without_a_report_is_one_line(runs, tmp_path, capsys):
    base, new = runs
    assert main(["eval", "compare", str(base), str(new), "--threshold", "1"]) == 0
    capsys.readouterr()
    assert main(["eval", "compare", str(tmp_path), str(new)]) == 2
    assert "report.json does not exist: give the --out folder of an `aftersales eval` run" in capsys.readouterr().err
    assert main(["eval", "--tasks", "x"]) == 2
    assert "eval needs --agent CMD" in capsys.readouterr().err

"""`aftersales tasks check`: every shipped reference solution reaches its expected outcome, on both databases."""

from pathlib import Path

import pytest
import yaml

from aftersales.cli.main import main
from aftersales.testing.check import check_tasks, explain
from aftersales.testing.loader import load, runnable, shipped_tasks
from tests.support.harness import hosting
from tests.support.worlds import next_number


@pytest.fixture
def host(backend: str, request: pytest.FixtureRequest, tmp_path: Path):
    """A harness on the chosen backend (on PostgreSQL, its control database is the test's seeded copy)."""
    if backend == "sqlite":
        with hosting(tmp_path) as started:
            yield started
        return
    home = request.getfixturevalue("postgres_worlds_home")
    with hosting(tmp_path, request.getfixturevalue("database_url"), home) as started:
        yield started


def test_every_shipped_reference_solution_reaches_its_outcome_and_obeys_its_rules(host):
    tasks, _ = runnable(load())
    results = check_tasks(host, tasks, parallel=2)
    failures = {result.task.id: explain(result) for result in results if not result.passed}
    assert not failures, "\n".join(f"{name}:\n{text}" for name, text in failures.items())
    assert len(results) >= 40


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
    assert "skip  needs-a-future-tool  (needs after_sales_future_tool, which this server does not serve)" in (
        capsys.readouterr().out
    )

"""`tasks check` goes on past a task whose world or replay breaks off: that task fails with one line, no traceback."""

from typing import Any

from aftersales.testing.check import check_tasks, explain
from aftersales.testing.loader import load


class BreakingHost:
    """A harness whose worlds cannot be made, each in its own way."""

    def __init__(self) -> None:
        self.errors: list[BaseException] = [
            RuntimeError("the world limit (64) is reached"),
            ExceptionGroup("unhandled errors in a TaskGroup", [ConnectionError("connection refused")]),
        ]

    def open_trial(self, task: Any, mode: str = "brief") -> Any:
        raise self.errors.pop(0)


def test_a_task_whose_world_or_replay_breaks_off_fails_alone_with_one_line_and_the_run_goes_on():
    results = check_tasks(BreakingHost(), load("status-rejected,status-refunding"), modes=("brief",))  # type: ignore[arg-type]
    assert [(result.task.id, result.passed, result.problems()) for result in results] == [
        ("status-rejected", False, ["reference: the replay broke off: RuntimeError: the world limit (64) is reached"]),
        ("status-refunding", False, ["reference: the replay broke off: ConnectionError: connection refused"]),
    ]
    assert explain(results[1]) == "  reference: the replay broke off: ConnectionError: connection refused"

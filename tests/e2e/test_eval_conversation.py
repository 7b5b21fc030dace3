"""`aftersales eval --mode conversation` with the scripted agent: every shipped task passes, each mistake is caught.

The agent learns what the customer knows and wants only by asking over the trial's channel. Each deliberate mistake
breaks one conversation rule, and fails exactly the tasks that carry that rule, with the part `conversation` named.
"""

from collections.abc import Callable
from pathlib import Path

import pytest

from aftersales.testing.loader import load
from aftersales.testing.scoring import expects_change
from aftersales.testing.tasks import ConversationRules, Task
from tests.support.evals import AGENT, NOTHING, failed, run, trajectory

TASKS = load()
# What the no-ask agent asks for: only what no lookup can give (the order number, or the email or phone to find it).
IDENTIFIERS = {"order_id", "email", "phone", "customer_id"}


def ids(tasks: list[Task]) -> set[str]:
    """The ids of some tasks."""
    return {task.id for task in tasks}


def with_rule(test: Callable[[ConversationRules], bool]) -> set[str]:
    """The shipped tasks whose conversation rules pass `test`."""
    return ids([task for task in TASKS if task.conversation is not None and test(task.conversation)])


def test_the_scripted_agent_passes_every_shipped_task_in_a_conversation(tmp_path: Path):
    code, report = run(tmp_path, AGENT, "--mode", "conversation", tasks=[task.id for task in TASKS])
    assert code == 0, failed(report)
    assert report["overall"]["verdicts"]["pass"] == len(TASKS)
    # It asked for the order number and what happened before it wrote, and told the ticket number and the refund.
    turns = [entry for entry in trajectory(tmp_path, "refund-tshirts-store-credit") if entry.get("type") == "turn"]
    revealed = {name for turn in turns for name in turn["revealed"]}
    assert {"order_id", "wants.kind", "wants.reason_code"} <= revealed
    assert not any(turn["miss"] for turn in turns)
    assert turns[-1]["ended"] and turns[-1]["reason"] == "need_met"


@pytest.mark.parametrize(
    ("mistake", "breaks"),
    [
        ("no-ask", lambda rules: bool(set(rules.must_ask) - IDENTIFIERS)),
        ("no-tell", lambda rules: "ticket_id" in rules.communicate),
        ("ignore-refusal", lambda rules: "refusal" in rules.communicate),
    ],
)
def test_each_deliberate_mistake_fails_exactly_the_tasks_whose_conversation_rule_it_breaks(
    tmp_path: Path, mistake: str, breaks: Callable[[ConversationRules], bool]
):
    code, report = run(tmp_path, f"{AGENT} --mistake {mistake}", "--mode", "conversation", tasks=[t.id for t in TASKS])
    failures = failed(report)
    assert code == 1
    assert set(failures) == with_rule(breaks)
    assert all("conversation" in parts for parts in failures.values()), failures


def test_an_agent_that_never_asks_fails_every_task_that_needs_an_asked_fact_and_every_change_task(tmp_path: Path):
    code, report = run(tmp_path, NOTHING, "--mode", "conversation", tasks=[task.id for task in TASKS])
    failures = failed(report)
    asked = with_rule(lambda rules: bool(rules.must_ask))
    change = ids([task for task in TASKS if expects_change(task.expected)])
    assert code == 1 and len(asked) >= 30
    assert asked | change <= set(failures)
    assert all("conversation" in failures[task] for task in asked), failures

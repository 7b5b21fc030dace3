"""The scripted agent's deliberate mistakes in a conversation: each fails exactly the tasks whose rule it breaks.

Run on the tasks written for conversations (tag `conversation`), which carry every kind of rule the mistakes break;
the agent without mistakes passes every shipped task in test_eval_conversation.py.
"""

from collections.abc import Callable
from pathlib import Path

import pytest

from aftersales.testing.loader import load
from aftersales.testing.tasks import ConversationRules
from tests.support.evals import AGENT, IDENTIFIERS, failed, run, with_rule

TASKS = [task for task in load() if "conversation" in task.tags]


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
    assert set(failures) == with_rule(TASKS, breaks) != set()
    assert all("conversation" in parts for parts in failures.values()), failures

"""The rule tasks (seed/tasks/rules-*) under `aftersales eval`: each one's wrong agent fails it for that rule only."""

import sys
from pathlib import Path

from aftersales.testing.loader import load
from tests.support import evals
from tests.support.wrong_agent import MISTAKES

WRONG = f"{sys.executable} {Path(evals.ROOT) / 'tests' / 'support' / 'wrong_agent.py'}"
CREATE, ESTIMATE = "after_sales_create_ticket", "after_sales_estimate_refund"
CAUGHT = {  # task: the part that fails and its problems, the rule's line
    "rules-lookup-before-write-air-fryer": ["order: call #4 (a write) has no after_sales_find_orders before it"],
    "rules-create-carries-quote-tshirts": [
        f"never called {CREATE} with quote_id=the quote_id of an earlier {ESTIMATE} (ok)"
    ],
    "rules-estimate-before-create-headphones": [f"order: call #1 ({CREATE}) has no {ESTIMATE} before it"],
    "rules-never-refund-only-laptop": [
        f"must_not_call: call #2 is {CREATE} with order_id='O-2026-001423', line_no=1, kind='refund_only', which the "
        "task forbids"
    ],
    "rules-expired-quote-refused-then-estimated": [
        f"order: call #2 ({CREATE} (tool_error, expired)) is not followed by {ESTIMATE} (ok)"
    ],
    "rules-two-estimates-headphones-clock": [f"must_call: called {ESTIMATE} (ok) once, at least 2 times wanted"],
    "rules-no-write-after-decline-tshirts": [f"order: call #3 (a write) comes after call #2 ({CREATE} (declined))"],
    "rules-quote-present-damaged-tshirts": [f"never called {CREATE} with quote_id={{'present': True}} (ok)"],
    "rules-repair-refused-once-rc-car": [
        f"must_call: called {CREATE} with kind='repair' (tool_error warranty_ended) 2 times, at most once allowed"
    ],
}
UNCHANGED = {  # expected.unchanged: the ticket, its events and the ticket sequence are what the customer would see
    "rules-declined-world-unchanged-tshirts": [
        f"{table} changed ({counts}) but the task allows no change there"
        for table, counts in (("ticket_events", "2 added"), ("ticket_sequences", "1 changed"), ("tickets", "1 added"))
    ]
}


def test_every_shipped_rule_task_has_a_wrong_agent_and_the_rule_it_fails_for():
    shipped = {task.id for task in load() if task.id.startswith("rules-")}
    assert shipped == set(MISTAKES) == set(CAUGHT) | set(UNCHANGED) and len(shipped) >= 10


def test_each_rule_tasks_wrong_agent_fails_it_for_that_rule_only_named_in_the_report(tmp_path: Path):
    code, report = evals.run(tmp_path, WRONG, tasks=sorted(MISTAKES))
    assert code == 1
    found = {}
    for task in report["tasks"]:
        (trial,) = task["results"]
        problems = {part: trial[part]["problems"] for part in ("outcome", "calls") if trial[part]["problems"]}
        found[task["id"]] = (trial["verdict"], trial["failed_parts"], problems)
    wanted = {task: ("agent", ["calls"], {"calls": problems}) for task, problems in CAUGHT.items()}
    wanted |= {task: ("agent", ["outcome"], {"outcome": problems}) for task, problems in UNCHANGED.items()}
    assert found == wanted

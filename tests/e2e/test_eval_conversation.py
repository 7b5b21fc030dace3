"""`aftersales eval --mode conversation`: the scripted agent passes every shipped task; an agent that never talks fails.

The agent learns what the customer knows and wants only by asking over the trial's channel. The deliberate mistakes
are in test_eval_conversation_mistakes.py, a file of its own so the two run side by side.
"""

from pathlib import Path

from aftersales.testing.loader import load
from aftersales.testing.scoring import expects_change
from tests.support.evals import AGENT, NOTHING, failed, ids, run, trajectory, with_rule

TASKS = load()


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


def test_an_agent_that_never_asks_fails_every_task_that_needs_an_asked_fact_and_every_change_task(tmp_path: Path):
    # On the tasks written for conversations, which carry every kind of asked fact; that a do-nothing agent fails
    # every change task of the whole set is test_eval.py's (in brief mode: the same agent, the same worlds).
    talking = [task for task in TASKS if "conversation" in task.tags]
    code, report = run(tmp_path, NOTHING, "--mode", "conversation", tasks=[task.id for task in talking])
    failures = failed(report)
    asked = with_rule(talking, lambda rules: bool(rules.must_ask))
    change = ids([task for task in talking if expects_change(task.expected)])
    assert code == 1 and len(asked) >= 30 and change
    assert asked | change <= set(failures)
    assert all("conversation" in failures[task] for task in asked), failures

"""A small eval run made by hand: a pass, a failure, a timeout and a customer miss, with trajectories and diffs.

Built through `report.build` from TrialResults and traces in the tracer's own shape (`complete`, `turn`), so the
HTML report and `eval compare` are tested on what an eval writes, without running an agent.
"""

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aftersales.testing import report
from aftersales.testing.events import mark_faults
from aftersales.testing.runner import TrialResult, tail
from aftersales.testing.scoring import Score, calls_per_tool, tool_errors
from aftersales.testing.tasks import Task
from aftersales.worlds.trace import complete, turn
from tests.support.tasks import a_task
from tests.support.worlds import traced_call

CREATE, ESTIMATE, FIND = "after_sales_create_ticket", "after_sales_estimate_refund", "after_sales_find_orders"
AT = "2026-12-01T09:00:00Z"
HOSTILE = '<script>alert("agent")</script><img src=x onerror=alert(1)>'  # agent text the page must escape
REFUSED = "Order O-2026-001200 line 1 is past its return window (delivered 2026-10-01).\nRule: 30 days. Next: a repair."
ASKED_LATE = "must_ask: call #3 (after_sales_find_orders) wrote before the customer gave order_id"
TASKS = [
    a_task(id="refund-passes", title="A refund that passes"),
    a_task(id="refund-refused", title="A create refused by a rule"),
    a_task(id="slow-agent", title="An agent that runs out of time"),
    a_task(id="customer-misses", title="A customer who misses a question"),
]


def trace_of(*drafts: Any) -> list[dict[str, Any]]:
    """Drafts and turns numbered in order, as a world's trace."""
    entries = []
    for seq, item in enumerate(drafts, 1):
        entries.append(item | {"seq": seq} if isinstance(item, dict) else complete(item, seq, None))
    return entries


def diff(tables: dict[str, Any], before: str = "sha256:aaaa", after: str = "sha256:bbbb") -> dict[str, Any]:
    """A world diff (aftersales-world-diff/1) of `tables`."""
    summary = {name: {kind: len(rows) for kind, rows in entry.items()} for name, entry in tables.items()}
    return {
        "format": "aftersales-world-diff/1",
        "before": {"label": "start", "hash": before},
        "after": {"label": "trial", "hash": after},
        "identical": not tables,
        "summary": summary,
        "tables": tables,
    }


def ticket(number: str, status: str) -> dict[str, Any]:
    return {"key": {"id": number}, "row": {"id": number, "kind": "return_and_refund", "status": status}}


def trials() -> list[tuple[Task, Score, list[dict[str, Any]], dict[str, Any]]]:
    """(task, score, trace, result fields) of the four trials."""
    passing = trace_of(
        traced_call("w-1", FIND, {"email": "ana@example.com"}, result={"orders": [{"order_id": "O-2026-001100"}]}),
        traced_call(
            "w-1",
            CREATE,
            {"order_id": "O-2026-001100", "line_no": 1, "kind": "return_and_refund"},
            result={"outcome": "created", "ticket_id": "T-2026-0401"},
            rounds=[
                {
                    "via": "input_required",
                    "questions": [{"key": "refund_method", "method": "elicitation/create", "message": "How?"}],
                    "answers": [{"key": "refund_method", "action": "accept", "content": {"refund_method": "card"}}],
                    "answered_by": "script",
                }
            ],
        ),
    )
    changed = diff({"tickets": {"added": [ticket("T-2026-0401", "under_review")], "removed": [], "changed": []}})
    refusal = {"kind": "rule", "message": REFUSED}
    refused = trace_of(
        traced_call("w-2", ESTIMATE, {"order_id": "O-2026-001200", "line_no": 1}, result={"quote_id": "q-1"}),
        traced_call(
            "w-2", CREATE, {"order_id": "O-2026-001200"}, outcome="tool_error", error_kind="rule", error=refusal
        ),
        traced_call(
            "w-2", CREATE, {"order_id": "O-2026-001200"}, outcome="tool_error", error_kind="rule", error=refusal
        ),
    )
    refused = mark_faults(refused, [], {(ESTIMATE, 1): "31m"})
    broken = diff(
        {
            "tickets": {
                "added": [ticket("T-2026-0402", "approved")],
                "removed": [ticket("T-2026-0300", "open")],
                "changed": [{"key": {"id": "T-2026-0325"}, "fields": {"status": {"before": "open", "after": HOSTILE}}}],
            }
        },
        after="sha256:cccc",
    )
    slow = trace_of(traced_call("w-3", FIND, {"email": "bo@example.com"}, result={"orders": []}))
    talk = trace_of(
        turn("w-4", AT, AT, "agent", "What is your order number?"),
        turn("w-4", AT, AT, "customer", "Sorry?", engine="scripted", miss=True),
        traced_call("w-4", FIND, {"email": "cy@example.com"}, result={"orders": []}),
    )
    return [
        (TASKS[0], Score([], [], "sha256:bbbb", changed), passing, {"answer": "Ticket T-2026-0401 is open."}),
        (
            TASKS[1],
            Score(
                ["tickets: no added row matches"],
                [f"call #3 opens a ticket for {HOSTILE} again"],
                "sha256:cccc",
                broken,
            ),
            refused,
            {"answer": HOSTILE, "stderr": "Traceback (most recent call last):\nValueError: " + HOSTILE},
        ),
        (
            TASKS[2],
            Score(["tickets: no added row matches"], [], "sha256:aaaa", diff({}, after="sha256:aaaa")),
            slow,
            {"timed_out": True, "exit_code": -9},
        ),
        (
            TASKS[3],
            Score(
                ["tickets: no added row matches"],
                [],
                "sha256:aaaa",
                diff({}, after="sha256:aaaa"),
                conversation=[ASKED_LATE],
            ),
            talk,
            {"misses": ("turn #2: the customer could not map the agent's message to anything",)},
        ),
    ]


def a_run(folder: Path, hashes: dict[str, str] | None = None, failing: set[str] | None = None) -> report.Report:
    """Write the run's trajectories and report.json into `folder`; its report.

    `hashes` replaces the world hash of a task's trial; `failing` names tasks whose trial fails outright (for a
    second run to compare).
    """
    (folder / "trajectories").mkdir(parents=True, exist_ok=True)
    results = []
    for task, scored, trace, fields in trials():
        name = f"trajectories/{task.id}.1.jsonl"
        (folder / name).write_text("".join(json.dumps(entry) + "\n" for entry in trace), encoding="utf-8")
        if hashes and task.id in hashes:
            scored = replace(scored, world_hash=hashes[task.id])
        if failing and task.id in failing:
            scored = replace(scored, outcome=["tickets: no added row matches"])
        defaults: dict[str, Any] = {"exit_code": 0, "timed_out": False, "answer": ""}
        fields = defaults | fields
        stderr = tail(fields.pop("stderr", ""))
        results.append(
            TrialResult(
                task,
                1,
                scored,
                duration_s=1.5,
                trajectory=name,
                stderr=stderr,
                errors=tuple(tool_errors(trace)),
                calls_per_tool=calls_per_tool(trace),
                **fields,
            )
        )
    built = report.build(results, TASKS, "python my_agent.py", "world", 1, datetime(2026, 12, 1, tzinfo=UTC), 6.0)
    (folder / "report.json").write_text(built.model_dump_json(indent=2), encoding="utf-8")
    return built

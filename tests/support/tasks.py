"""A small task made by hand: one query of one ticket, changed where a test says."""

from aftersales.testing.tasks import Task


def a_task(**changes: object) -> Task:
    document = {
        "id": "no-change",
        "title": "A question",
        "customer": {"opening": "Hi", "knows": {}, "story": "s", "wants": {"action": "check_ticket"}},
        "expected": {"tables": {}},
        "calls": {"must_call": ["after_sales_query_ticket"]},
        "mention": ["T-2026-0325"],
        "reference": [{"call": "after_sales_query_ticket", "arguments": {"ticket_id": "T-2026-0325"}}],
    }
    return Task.model_validate(document | changes)

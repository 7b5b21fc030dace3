"""An expected outcome against a world's diff: rows pair one to one, matchers, allowed tables, field changes."""

from typing import Any

import pytest
from pydantic import ValidationError

from aftersales.testing.matching import outcome_problems
from aftersales.testing.scoring import expects_change
from aftersales.testing.tasks import Expected

TICKET = {"kind": "return_and_refund", "order_id": "O-2026-001410", "line_no": 1, "status": "approved", "paid": True}


def diff(**tables: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """A diff (aftersales-world-diff/1) holding these tables' added, removed and changed rows."""
    return {"tables": {name: {"added": [], "removed": [], "changed": [], **kinds} for name, kinds in tables.items()}}


def added(ticket_id: str, **changes: Any) -> dict[str, Any]:
    return {"key": {"id": ticket_id}, "row": {**TICKET, **changes}}


def expected(**document: Any) -> Expected:
    return Expected.model_validate(document)


ONE_TICKET = expected(
    tables={"tickets": {"added": [{"row": {"kind": "return_and_refund", "status": {"one_of": ["approved", "x"]}}}]}},
    only=["tickets", "ticket_sequences"],
)


def test_an_added_row_matching_every_matcher_passes():
    assert outcome_problems(ONE_TICKET, diff(tickets={"added": [added("T-2026-0385")]})) == []


def test_a_second_added_ticket_fails_an_outcome_of_one_and_names_both():
    problems = outcome_problems(ONE_TICKET, diff(tickets={"added": [added("T-2026-0385"), added("T-2026-0386")]}))
    assert problems == ["tickets: expected 1 added row(s), found 2 (T-2026-0385, T-2026-0386)"]


def test_a_wrong_value_names_the_field_the_value_and_what_was_expected():
    problems = outcome_problems(ONE_TICKET, diff(tickets={"added": [added("T-2026-0385", kind="refund_only")]}))
    assert problems == [
        "tickets: no added row matches; closest T-2026-0385: kind is 'refund_only', expected 'return_and_refund'"
    ]


def test_a_change_in_a_table_the_task_does_not_allow_fails():
    changed = {"changed": [{"key": {"id": "T-2026-0001"}, "fields": {"status": {"before": "a", "after": "b"}}}]}
    problems = outcome_problems(ONE_TICKET, diff(tickets={"added": [added("T-2026-0385")]}, quotes=changed))
    assert problems == ["quotes changed (1 changed) but the task allows no change there"]


def test_a_kind_of_change_the_task_does_not_describe_must_not_happen():
    changed = {"key": {"id": "T-2026-0001"}, "fields": {"status": {"before": "approved", "after": "cancelled"}}}
    problems = outcome_problems(ONE_TICKET, diff(tickets={"added": [added("T-2026-0385")], "changed": [changed]}))
    assert problems == ["tickets: expected 0 changed row(s), found 1 (T-2026-0001)"]


def test_tables_listed_in_only_may_change_freely():
    sequences = {"changed": [{"key": {"year": 2026}, "fields": {"last_value": {"before": 384, "after": 385}}}]}
    assert (
        outcome_problems(ONE_TICKET, diff(tickets={"added": [added("T-2026-0385")]}, ticket_sequences=sequences)) == []
    )


def test_a_changed_field_matches_before_and_after_and_absent_means_unchanged():
    cancel = expected(
        tables={
            "tickets": {
                "changed": [
                    {"key": {"id": "T-1"}, "fields": {"status": {"after": "cancelled"}, "kind": {"absent": True}}}
                ]
            }
        }
    )
    fields = {"status": {"before": "approved", "after": "cancelled"}, "updated_at": {"before": "a", "after": "b"}}
    assert outcome_problems(cancel, diff(tickets={"changed": [{"key": {"id": "T-1"}, "fields": fields}]})) == []
    fields["kind"] = {"before": "exchange", "after": "repair"}
    assert outcome_problems(cancel, diff(tickets={"changed": [{"key": {"id": "T-1"}, "fields": fields}]})) == [
        "tickets: no changed row matches; closest T-1: kind changed to 'repair', expected no change"
    ]


def test_a_flag_never_matches_a_number():
    flagged = expected(tables={"tickets": {"added": [{"row": {"paid": 1}}]}})
    assert outcome_problems(flagged, diff(tickets={"added": [added("T-1")]}))


def test_rows_pair_one_to_one_even_when_the_first_fitting_row_is_needed_elsewhere():
    # The first expected row fits both actual rows, the second only the first: a greedy pairing would fail.
    two = expected(
        tables={"tickets": {"added": [{"row": {"kind": {"any": True}}}, {"row": {"kind": "return_and_refund"}}]}}
    )
    rows = [added("T-1"), added("T-2", kind="repair")]
    assert outcome_problems(two, diff(tickets={"added": rows})) == []


def test_an_unchanged_world_fails_every_outcome_that_is_a_change_and_passes_the_others():
    assert expects_change(ONE_TICKET)
    assert not expects_change(expected(tables={}, only=["quotes"]))
    assert not expects_change(expected(tables={"tickets": {}}, only=[]))


def test_unchanged_lets_quotes_and_idempotency_records_change_and_nothing_a_customer_sees():
    unchanged = expected(unchanged=True)
    left_behind = diff(quotes={"added": [{"key": {"id": "q"}, "row": {}}]}, idempotency_records={"added": [{}]})
    assert outcome_problems(unchanged, left_behind) == [] and not expects_change(unchanged)
    assert outcome_problems(unchanged, diff(tickets={"added": [added("T-2026-0401")]}, ticket_events={})) == [
        "ticket_events changed () but the task allows no change there",
        "tickets changed (1 added) but the task allows no change there",
    ]


def test_unchanged_takes_no_tables_nor_only_beside_it():
    for beside in ({"tables": {"tickets": {}}}, {"only": ["quotes"]}):
        with pytest.raises(ValidationError, match="unchanged takes no tables or only"):
            expected(unchanged=True, **beside)


def test_present_matches_a_value_that_is_there_and_not_null():
    row = expected(tables={"tickets": {"added": [{"row": {"refund_method": {"present": True}}}]}})
    assert outcome_problems(row, diff(tickets={"added": [added("T-1", refund_method="store_credit")]})) == []
    assert outcome_problems(row, diff(tickets={"added": [added("T-1", refund_method=None)]})) != []

"""Rules a task states on its calls: argument matchers, results with counts, and orders between calls (traces)."""

import re
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from aftersales.testing.rules import rule_problems
from aftersales.testing.tasks import CallRules, Expected
from tests.support import ROOT
from tests.support.trace_entries import CREATE, ESTIMATE, create, entry

FIND, CANCEL = "after_sales_find_orders", "after_sales_cancel_ticket"
QUOTE = "4f1c2a9e-0000-4000-8000-000000000001"


def rules(**values: Any) -> CallRules:
    return CallRules.model_validate(values)


def estimate(seq: int, quote: str = QUOTE, **extra: Any) -> dict[str, Any]:
    return entry(seq, ESTIMATE, result={"quote_id": quote, "total": {"amount": 9900}}, **extra)


def refused(seq: int, kind: str = "rule", **extra: Any) -> dict[str, Any]:
    return create(seq, outcome="tool_error", error_kind=kind, error={"kind": kind, "message": "no"}, **extra)


def declined(seq: int) -> dict[str, Any]:
    return create(seq, result={"outcome": "not_created", "ticket": None})


def test_an_argument_matcher_in_must_not_call_forbids_only_the_calls_it_matches():
    never = rules(must_not_call=[{"tool": CREATE, "arguments": {"line_no": 1, "kind": "refund_only"}}])
    assert rule_problems(never, [create(1)]) == []
    assert rule_problems(never, [create(1, arguments={"kind": "refund_only"})]) == [
        f"must_not_call: call #1 is {CREATE} with line_no=1, kind='refund_only', which the task forbids"
    ]


def test_present_requires_an_argument_that_is_there_and_absent_one_that_is_not():
    given = rules(must_call=[{"tool": CREATE, "arguments": {"quote_id": {"present": True}}}])
    assert rule_problems(given, [create(1, arguments={"quote_id": QUOTE})]) == []
    assert rule_problems(given, [create(1, arguments={"quote_id": None})]) == [
        f"never called {CREATE} with quote_id={{'present': True}}"
    ]
    left_out = rules(must_call=[{"tool": CREATE, "arguments": {"refund_method": {"absent": True}}}])
    assert rule_problems(left_out, [create(1)]) == []
    assert rule_problems(left_out, [create(1, arguments={"refund_method": "store_credit"})]) != []


def test_any_matches_an_argument_whatever_its_value_and_when_it_is_left_out():
    anything = rules(must_call=[{"tool": CREATE, "arguments": {"quote_id": {"any": True}}}])
    assert rule_problems(anything, [create(1)]) == []
    assert rule_problems(anything, [create(1, arguments={"quote_id": QUOTE})]) == []


def test_from_matches_the_field_an_earlier_call_that_went_through_gave_and_nothing_else():
    carried = rules(must_call=[{"tool": CREATE, "arguments": {"quote_id": {"from": ESTIMATE, "field": "quote_id"}}}])
    assert rule_problems(carried, [estimate(1), create(2, arguments={"quote_id": QUOTE})]) == []
    wanted = f"never called {CREATE} with quote_id=the quote_id of an earlier {ESTIMATE}"
    assert rule_problems(carried, [create(1, arguments={"quote_id": QUOTE}), estimate(2)]) == [wanted]  # too early
    assert rule_problems(carried, [estimate(1), create(2, arguments={"quote_id": "made-up"})]) == [wanted]
    assert rule_problems(carried, [estimate(1), create(2)]) == [wanted]
    failed = {**estimate(1), "outcome": "tool_error"}
    assert rule_problems(carried, [failed, create(2, arguments={"quote_id": QUOTE})]) == [wanted]


def test_a_result_rule_counts_the_calls_that_came_to_that_result_between_min_and_max():
    once = rules(
        must_call=[{"tool": CREATE, "result": "tool_error", "error_kind": "rule", "min_calls": 1, "max_calls": 1}],
        no_create_after_refusal=False,
        one_key_per_ticket=False,
    )
    assert rule_problems(once, [refused(1)]) == []
    assert rule_problems(once, [create(1)]) == [f"never called {CREATE} (tool_error, rule)"]
    assert rule_problems(once, [refused(1, kind="expired")]) == [f"never called {CREATE} (tool_error, rule)"]
    assert rule_problems(once, [refused(1), refused(2, key="k-00000002")]) == [
        f"must_call: called {CREATE} (tool_error, rule) 2 times, at most once allowed"
    ]
    twice = rules(must_call=[{"tool": ESTIMATE, "result": "ok", "min_calls": 2}])
    assert rule_problems(twice, [estimate(1)]) == [f"must_call: called {ESTIMATE} (ok) once, at least 2 times wanted"]


def test_a_result_naming_a_rule_code_counts_only_the_refusals_by_that_rule():
    window = rules(
        must_call=[{"tool": CREATE, "result": {"error_code": "return_window_closed"}, "max_calls": 1}],
        no_create_after_refusal=False,
        one_key_per_ticket=False,
    )
    by_window = refused(1, error_code="return_window_closed")
    assert rule_problems(window, [by_window]) == []
    wanted = f"never called {CREATE} (tool_error return_window_closed)"
    assert rule_problems(window, [refused(1, error_code="line_has_open_ticket")]) == [wanted]
    assert rule_problems(window, [refused(1)]) == [wanted]  # a refusal traced before codes names none
    assert rule_problems(window, [create(1, error_code="return_window_closed")]) == [wanted]  # went through
    assert rule_problems(window, [by_window, refused(2, key="k-00000002", error_code="return_window_closed")]) == [
        f"must_call: called {CREATE} (tool_error return_window_closed) 2 times, at most once allowed"
    ]


def test_a_result_naming_a_code_no_rule_has_is_refused_when_the_task_loads():
    with pytest.raises(ValidationError, match="error_code"):
        rules(must_call=[{"tool": CREATE, "result": {"error_code": "window_closed"}}])


def test_a_call_answered_in_a_later_round_came_to_what_that_round_came_to():
    asked = create(1, outcome="input_required")
    answered = {**declined(2), "resumes": 1}
    said_no = rules(must_call=[{"tool": CREATE, "result": "declined"}])
    assert rule_problems(said_no, [asked, answered]) == []
    assert rule_problems(said_no, [asked, {**create(2), "resumes": 1}]) == [f"never called {CREATE} (declined)"]


def test_first_then_needs_a_call_of_first_before_every_call_of_then_and_write_means_any_write():
    lookup = rules(order=[{"first": FIND, "then": "write"}])
    assert rule_problems(lookup, [entry(1, FIND), estimate(2), create(3)]) == []
    assert rule_problems(lookup, [estimate(1)]) == []  # no write: nothing to come after
    assert rule_problems(lookup, [estimate(1), create(2), entry(3, FIND), entry(4, CANCEL)]) == [
        f"order: call #2 (a write) has no {FIND} before it"
    ]


def test_after_never_forbids_any_call_of_never_after_the_first_call_of_after():
    no_write = rules(
        order=[{"after": {"tool": CREATE, "result": "declined"}, "never": "write"}], no_create_after_refusal=False
    )
    assert rule_problems(no_write, [estimate(1), declined(2), estimate(3)]) == []
    assert rule_problems(no_write, [declined(1), declined(2), entry(3, CANCEL)]) == [
        f"order: call #2 (a write) comes after call #1 ({CREATE} (declined))",
        f"order: call #3 (a write) comes after call #1 ({CREATE} (declined))",
    ]


def test_after_followed_by_needs_a_later_call_of_followed_by_after_each_call_of_after():
    fresh = rules(
        order=[{"after": {"tool": CREATE, "error_kind": "expired"}, "followed_by": {"tool": ESTIMATE, "result": "ok"}}]
    )
    assert rule_problems(fresh, [estimate(1), refused(2, kind="expired"), estimate(3), create(4)]) == []
    assert rule_problems(fresh, [estimate(1), refused(2, kind="expired"), create(3)]) == [
        f"order: call #2 ({CREATE} (expired)) is not followed by {ESTIMATE} (ok)"
    ]


def test_a_tool_name_alone_still_works_in_must_call_and_must_not_call():
    old = rules(must_call=[ESTIMATE], must_not_call=[CANCEL])
    assert rule_problems(old, [estimate(1), entry(2, CANCEL)]) == [f"called {CANCEL}, which the task forbids"]


def test_a_maximum_below_the_minimum_and_an_unknown_result_are_refused():
    with pytest.raises(ValidationError, match="max_calls 1 is below min_calls 2"):
        rules(must_call=[{"tool": CREATE, "min_calls": 2, "max_calls": 1}])
    with pytest.raises(ValidationError):
        rules(must_call=[{"tool": CREATE, "result": "refused"}])
    with pytest.raises(ValidationError):
        rules(order=[{"first": FIND, "never": CREATE}])


def test_a_minimum_of_none_with_a_maximum_only_limits_the_calls():
    at_most_once = rules(
        must_call=[{"tool": CREATE, "error_kind": "rule", "min_calls": 0, "max_calls": 1}],
        no_create_after_refusal=False,
        one_key_per_ticket=False,
    )
    assert rule_problems(at_most_once, []) == [] and rule_problems(at_most_once, [refused(1)]) == []
    assert rule_problems(at_most_once, [refused(1), refused(2, key="k-2")]) == [
        f"must_call: called {CREATE} (rule) 2 times, at most once allowed"
    ]


def test_each_sentence_the_docs_say_as_a_rule_is_a_rule_that_loads():
    text = (ROOT / "docs" / "tasks.md").read_text(encoding="utf-8")
    block = text.split('# "find_orders before any write"\n', 1)[1].split("```", 1)[0]
    said = re.split(r"^# .*\n", block, flags=re.M)
    assert len(said) == 6
    for snippet in said:
        document = yaml.safe_load(snippet)
        if "calls" in document:
            CallRules.model_validate(document["calls"])
        else:
            Expected.model_validate(document["expected"])

"""The trace format (aftersales-trace/1): entries, their rounds of questions and answers, and the printed form."""

import json

from aftersales.domain.errors import NotFound, RuleViolation
from aftersales.domain.rule_codes import RuleCode
from aftersales.mcp.error_mapping import error_result
from aftersales.mcp.tracing import describe as describe_result
from aftersales.testing.trajectory_lines import TrajectoryLine
from aftersales.worlds.timeline import describe
from aftersales.worlds.trace import (
    FORMAT,
    answers,
    complete,
    is_turn,
    lines,
    questions,
    redacted,
    state_digest,
    turn,
)
from tests.support.worlds import traced_call

ASKED = {
    "after_sales_create_ticket:refund_method": {
        "method": "elicitation/create",
        "params": {"message": "Where should the refund go?", "requestedSchema": {"type": "object"}},
    }
}
GIVEN = {"after_sales_create_ticket:refund_method": {"action": "accept", "content": {"refund_method": "store_credit"}}}


def test_questions_and_answers_are_read_from_the_wire_by_key():
    assert questions(ASKED) == [
        {
            "key": "after_sales_create_ticket:refund_method",
            "method": "elicitation/create",
            "message": "Where should the refund go?",
            "requested_schema": {"type": "object"},
        }
    ]
    assert answers(GIVEN) == [
        {
            "key": "after_sales_create_ticket:refund_method",
            "action": "accept",
            "content": {"refund_method": "store_credit"},
        }
    ]
    assert questions(None) == [] and answers(["not", "a", "mapping"]) == []


def test_an_entry_keeps_the_arguments_whole_and_hides_only_secrets():
    long = "x" * 5000
    entry = complete(
        traced_call("w-1", "t", {"description": long, "api_token": "s3cret", "nested": [{"Password": 1}]}), 7, None
    )
    assert entry["arguments"] == {
        "description": long,
        "api_token": "[redacted]",
        "nested": [{"Password": "[redacted]"}],
    }
    assert (entry["format"], entry["seq"], entry["resumes"], entry["rounds"]) == (FORMAT, 7, None, [])
    assert redacted("plain") == "plain"


def test_an_answering_entry_holds_the_questions_it_answers_and_names_the_entry_that_asked():
    asked = complete(traced_call("w-1", "t", {}, outcome="input_required", input_requests=questions(ASKED)), 1, None)
    answering = complete(traced_call("w-1", "t", {}, input_responses=answers(GIVEN)), 2, (1, asked))
    assert asked["rounds"] == [
        {"via": "input_required", "questions": questions(ASKED), "answers": None, "answered_by": None}
    ]
    assert answering["resumes"] == 1 and answering["rounds"] == [
        {"via": "input_required", "questions": questions(ASKED), "answers": answers(GIVEN), "answered_by": "client"}
    ]


def test_a_rule_refusal_is_traced_with_its_rule_code_beside_its_kind_and_other_errors_with_none():
    refused, missing = traced_call("w-1", "t", {}), traced_call("w-1", "t", {})
    held = RuleViolation(RuleCode.LINE_HAS_OPEN_TICKET, "Line 1 has T-2026-0007 open.", "One at a time.", "Ask.")
    describe_result(error_result(held), refused)
    describe_result(error_result(NotFound("No order O-2026-999999.", "Numbers are real.", "Ask.")), missing)
    entries = [complete(refused, 1, None), complete(missing, 2, None)]
    assert [(e["outcome"], e["error_kind"], e["error_code"]) for e in entries] == [
        ("tool_error", "rule", "line_has_open_ticket"),
        ("tool_error", "not_found", None),
    ]
    for entry in entries:
        TrajectoryLine.model_validate(entry)  # the published trajectory format has the field


def test_a_request_state_is_linked_by_digest_only():
    assert state_digest("sealed") == state_digest("sealed") != state_digest("other")
    assert state_digest(None) is None and state_digest("") is None and len(state_digest("s") or "") == 64


def test_the_trace_exports_as_json_lines_and_prints_a_line_per_call_with_what_was_asked():
    asked = complete(
        traced_call(
            "w-1",
            "after_sales_create_ticket",
            {"order_id": "O-1"},
            outcome="input_required",
            input_requests=questions(ASKED),
        ),
        1,
        None,
    )
    answering = complete(
        traced_call(
            "w-1",
            "after_sales_create_ticket",
            {"order_id": "O-1"},
            input_responses=answers(GIVEN),
            result={"outcome": "created"},
        ),
        2,
        (1, asked),
    )
    exported = lines([asked, answering])
    assert [json.loads(line)["seq"] for line in exported.splitlines()] == [1, 2] and exported.endswith("\n")
    printed = describe([asked, answering]).splitlines()
    assert printed[0].startswith("#1  2026-12-01T09:00:00Z  agent  after_sales_create_ticket  input_required")
    assert "    (not answered in this call)" in printed
    assert any(line.startswith("#2 ") and "answers #1" in line for line in printed)
    assert '    answered by client: accept {"refund_method": "store_credit"}' in printed
    assert '    result: {"outcome": "created"}' in printed
    assert describe([]) == "(no tool calls in this world yet)"


def test_a_turn_is_shown_with_who_spoke_what_it_revealed_and_why_it_ended():
    said = turn("w-1", "2026-12-01T09:00:00Z", "x", "customer", "My order is O-1.", ["order_id"], "scripted")
    ended = turn(
        "w-1", "2026-12-01T09:00:00Z", "x", "customer", "Bye.", engine="scripted", ended=True, reason="need_met"
    )
    missed = turn("w-1", "2026-12-01T09:00:00Z", "x", "customer", "Sorry?", engine="scripted", miss=True)
    printed = describe([said | {"seq": 1}, ended | {"seq": 2}, missed | {"seq": 3}]).splitlines()
    assert printed[:3] == [
        "#1  2026-12-01T09:00:00Z  customer says  [scripted]",
        '    "My order is O-1."',
        "    revealed: order_id",
    ]
    assert "    ended the conversation (need_met)" in printed
    assert any("customer miss" in line for line in printed)
    assert is_turn(said) and said["type"] == "turn" and said["format"] == FORMAT

"""Call rules on a trace: required and forbidden calls, limits, invalid arguments, refusals, one key per ticket."""

from typing import Any

from aftersales.testing.events import mark_faults
from aftersales.testing.rules import calls, rule_problems
from aftersales.testing.tasks import CallRules
from tests.support.trace_entries import CREATE, ESTIMATE, create, entry


def rules(**values: Any) -> CallRules:
    return CallRules.model_validate(values)


def test_must_call_names_the_missing_tool_and_the_arguments_it_wanted():
    wanted = rules(must_call=[ESTIMATE, {"tool": CREATE, "arguments": {"kind": "repair"}}])
    assert rule_problems(wanted, [create(1)]) == [
        f"never called {ESTIMATE}",
        f"never called {CREATE} with kind='repair'",
    ]


def test_must_not_call_and_the_limits_count_calls_not_resumed_rounds():
    trace = [create(1, outcome="input_required"), {**create(2), "resumes": 1}, entry(3, ESTIMATE)]
    assert rule_problems(rules(max_calls=2, max_calls_per_tool={CREATE: 1}), trace) == []
    assert rule_problems(rules(must_not_call=[ESTIMATE], max_calls=1), trace) == [
        f"called {ESTIMATE}, which the task forbids",
        "made 2 calls, at most 1 allowed",
    ]


def test_a_call_refused_for_its_arguments_breaks_the_rule_unless_the_task_allows_it():
    error = {"kind": "invalid_arguments", "message": "line_no must be 1..999\nmore"}
    refused = entry(1, ESTIMATE, "tool_error", error_kind="invalid_arguments", error=error)
    assert rule_problems(rules(), [refused]) == [
        f"call #1 ({ESTIMATE}) was refused for its arguments: line_no must be 1..999"
    ]
    assert rule_problems(rules(no_invalid_arguments=False), [refused]) == []


def test_a_create_refused_by_a_rule_is_not_repeated_for_that_line_and_kind():
    trace = [create(1, outcome="tool_error", error_kind="rule"), create(2)]
    assert rule_problems(rules(), trace) == [
        "call #2 opens a ticket for O-2026-001410 line 1 again after a rule refused it"
    ]


def test_a_repair_after_a_refused_refund_is_another_ticket_and_allowed():
    repair = create(2, key="k-00000002", arguments={"kind": "repair"})
    assert rule_problems(rules(), [create(1, outcome="tool_error", error_kind="rule"), repair]) == []


def test_no_create_for_the_line_after_the_customer_declined():
    declined = create(1, result={"outcome": "not_created"})
    forced = create(2, key="k-00000002", arguments={"refund_method": "original_payment"})
    assert "call #2 opens a ticket for O-2026-001410 line 1 again after the customer declined" in rule_problems(
        rules(), [declined, forced]
    )


def test_retries_of_one_ticket_reuse_one_idempotency_key():
    assert rule_problems(rules(), [create(1), create(2)]) == []
    assert rule_problems(rules(), [create(1), create(2, key="k-00000002")]) == [
        "2 different idempotency keys for one ticket (O-2026-001410 line 1, return_and_refund): retries must reuse one"
    ]
    assert rule_problems(rules(one_key_per_ticket=False), [create(1), create(2, key="k-00000002")]) == []


def test_a_create_the_server_could_not_ask_a_question_for_then_made_with_the_answer_is_one_call_and_passes():
    unasked = create(1, outcome="tool_error", error_kind="input_needed")  # a client without forms: no refund method
    answered = create(2, arguments={"refund_method": "store_credit"})  # the customer's answer, the same key
    wanted = rules(
        must_call=[{"tool": CREATE, "arguments": {"refund_method": "store_credit"}}],
        max_calls=1,
        max_calls_per_tool={CREATE: 1},
    )
    assert rule_problems(wanted, [unasked, answered]) == []


def test_a_create_refused_by_a_rule_then_made_again_with_the_same_key_still_fails():
    refused = create(1, outcome="tool_error", error_kind="rule")
    again = create(2, arguments={"refund_method": "store_credit"})
    assert rule_problems(rules(max_calls_per_tool={CREATE: 1}), [refused, again]) == [
        f"called {CREATE} 2 times, at most 1 allowed",
        "call #2 opens a ticket for O-2026-001410 line 1 again after a rule refused it",
    ]


def test_the_same_create_repeated_unchanged_after_a_question_it_could_not_ask_is_a_call_of_its_own():
    unasked = create(1, outcome="tool_error", error_kind="input_needed")
    repeated = create(2, outcome="tool_error", error_kind="input_needed")
    assert rule_problems(rules(max_calls_per_tool={CREATE: 1}), [unasked, repeated]) == [
        f"called {CREATE} 2 times, at most 1 allowed"
    ]


def test_a_call_required_only_with_forms_is_required_of_a_client_that_can_show_them_and_of_no_other():
    wanted = rules(must_call=[ESTIMATE, {"tool": CREATE, "only_with_forms": True}])
    estimated = entry(1, ESTIMATE, client_forms=False)
    assert rule_problems(wanted, [estimated]) == []
    assert rule_problems(wanted, [{**estimated, "client_forms": True}]) == [f"never called {CREATE}"]
    assert rule_problems(wanted, []) == [f"never called {ESTIMATE}"]


def test_a_call_required_only_with_forms_is_not_required_in_a_conversation_where_the_agent_confirms_in_the_chat():
    wanted = rules(must_call=[ESTIMATE, {"tool": CREATE, "only_with_forms": True}])
    asked = {"format": "aftersales-trace/1", "type": "turn", "speaker": "agent", "text": "Shall I go ahead?", "seq": 2}
    declined = asked | {"speaker": "customer", "text": "No, please don't.", "seq": 3}
    assert rule_problems(wanted, [entry(1, ESTIMATE, client_forms=True), asked, declined]) == []


def test_conversation_turns_in_the_trace_are_not_calls_and_break_no_rule():
    said = {"format": "aftersales-trace/1", "type": "turn", "speaker": "agent", "text": "Which order?", "seq": 1}
    trace = [said, entry(2, ESTIMATE), said | {"seq": 3, "speaker": "customer"}]
    assert calls(trace) == [trace[1]]
    assert rule_problems(rules(must_call=[ESTIMATE], max_calls=1), trace) == []


def test_a_lost_answer_is_marked_on_its_call_counted_without_the_turns():
    said = {"type": "turn", "speaker": "customer", "text": "Hi", "seq": 1}
    marked = mark_faults([said, entry(2, CREATE), entry(3, CREATE)], [(CREATE, 2)])
    assert [item.get("fault") for item in marked] == [None, None, "response_lost"]

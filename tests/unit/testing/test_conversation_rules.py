"""Conversation rules on hand-made timelines: facts asked before the first write, facts told after they came to be."""

from typing import Any

from aftersales.testing.conversation_rules import conversation_problems, tool_calls
from aftersales.testing.rules import rule_problems
from aftersales.testing.scoring import score
from aftersales.testing.tasks import CallRules, Task

CREATE, ESTIMATE, FIND = "after_sales_create_ticket", "after_sales_estimate_refund", "after_sales_find_orders"
QUERY, CANCEL = "after_sales_query_ticket", "after_sales_cancel_ticket"
EMPTY = {"tables": {}, "after": {"hash": "sha256:x"}}
REFUSED = (
    "SK-II Facial Treatment Essence (COS-001) cannot be returned once delivered. Items of this kind in Beauty are "
    "excluded from returns for hygiene or safety. Do not retry unchanged; no after-sales option remains."
)


def call(seq: int, tool: str, outcome: str = "ok", **extra: Any) -> dict[str, Any]:
    """A tool-call entry as aftersales/worlds/trace.py writes it (the keys the rules read)."""
    return {
        "format": "aftersales-trace/1",
        "seq": seq,
        "world": "w-1",
        "tool": tool,
        "outcome": outcome,
        "arguments": extra.pop("arguments", {}),
        "error_kind": None,
        "result": None,
        "error": None,
        "resumes": None,
        "rounds": [],
        **extra,
    }


def turn(seq: int, speaker: str, text: str, *revealed: str) -> dict[str, Any]:
    """A turn entry in the shared design's shape (conv-spec: one timeline with the calls)."""
    return {
        "format": "aftersales-trace/1",
        "type": "turn",
        "world": "w-1",
        "at": "2026-12-01T09:00:00Z",
        "wall_at": "2026-12-01T09:00:00Z",
        "speaker": speaker,
        "text": text,
        "revealed": list(revealed),
        "engine": "scripted",
        "miss": False,
        "ended": False,
        "reason": None,
        "seq": seq,
    }


def ticket(ticket_id: str = "T-2026-0401", amount: int = 4990, currency: str = "EUR") -> dict[str, Any]:
    refund = {"amount": amount, "currency": currency, "method": "store_credit", "display": "€49.90"}
    return {"ticket_id": ticket_id, "refund": refund}


def created(seq: int, **extra: Any) -> dict[str, Any]:
    result = {"outcome": "created", "ticket": ticket(**extra), "next_step": "Tell the customer."}
    return call(seq, CREATE, arguments={"order_id": "O-2026-001410", "line_no": 1}, result=result)


def estimated(seq: int, total: int = 4990, currency: str = "EUR") -> dict[str, Any]:
    result = {"quote_id": "q-1", "total": total, "currency": currency, "total_display": "€49.90"}
    return call(seq, ESTIMATE, arguments={"order_id": "O-2026-001410", "line_no": 1}, result=result)


def refused(seq: int, tool: str = ESTIMATE, message: str = REFUSED) -> dict[str, Any]:
    arguments = {"order_id": "O-2026-001433", "line_no": 1}
    error = {"kind": "rule", "message": message}
    return call(seq, tool, "tool_error", arguments=arguments, error_kind="rule", error=error)


def a_task(**conversation: Any) -> Task:
    document = {
        "id": "a-conversation",
        "title": "A refund in a conversation",
        "customer": {
            "opening": "Hi, I want to send my shirts back.",
            "knows": {"email": "ana@example.com", "order_id": "O-2026-001410", "line_no": 1, "phone": None},
            "story": "They do not fit.",
            "wants": {"action": "open_ticket", "kind": "return_and_refund", "refund_method": "store_credit"},
        },
        "expected": {"tables": {}},
        "conversation": conversation,
        "reference": [{"call": ESTIMATE, "arguments": {"order_id": "O-2026-001410", "line_no": 1}}],
    }
    return Task.model_validate(document)


def test_a_fact_the_customer_gave_before_the_first_write_passes_must_ask():
    trace = [
        turn(1, "customer", "Hi, I want to send my shirts back."),
        turn(2, "agent", "What is the email on your account?"),
        turn(3, "customer", "It's ana@example.com.", "email"),
        call(4, FIND, arguments={"email": "ana@example.com"}),
        turn(5, "agent", "Which order, and how would you like the money back?"),
        turn(6, "customer", "O-2026-001410, store credit please.", "order_id", "wants.refund_method"),
        created(7),
    ]
    assert conversation_problems(a_task(must_ask=["email", "order_id", "wants.refund_method"]), trace) == []


def test_an_agent_that_writes_without_asking_fails_must_ask_naming_each_fact_it_did_not_get():
    trace = [
        turn(1, "customer", "Hi, I want to send my shirts back."),
        turn(2, "agent", "What is the email on your account?"),
        turn(3, "customer", "It's ana@example.com.", "email"),
        call(4, FIND, arguments={"email": "ana@example.com"}),
        created(5),  # the order guessed from the lookup
        turn(6, "agent", "Which order was it, by the way?"),
        turn(7, "customer", "O-2026-001410.", "order_id"),
    ]
    assert conversation_problems(a_task(must_ask=["email", "order_id", "wants.refund_method"]), trace) == [
        f"must_ask: call #5 ({CREATE}) wrote before the customer gave order_id",
        f"must_ask: call #5 ({CREATE}) wrote before the customer gave wants.refund_method",
    ]


def test_a_cancel_is_a_write_too_and_a_trial_without_writes_needs_the_fact_given_at_all():
    asked = a_task(must_ask=["order_id"])
    cancelled = call(2, CANCEL, arguments={"ticket_id": "T-2026-0401"})
    assert conversation_problems(asked, [turn(1, "customer", "Cancel it."), cancelled]) == [
        f"must_ask: call #2 ({CANCEL}) wrote before the customer gave order_id"
    ]
    assert conversation_problems(asked, [turn(1, "customer", "Hi."), call(2, FIND)]) == [
        "must_ask: the customer never gave order_id"
    ]
    assert conversation_problems(asked, [turn(1, "customer", "O-2026-001410.", "order_id"), call(2, FIND)]) == []


def test_the_timeline_is_read_by_seq_not_by_list_order():
    trace = [created(3), turn(2, "customer", "O-2026-001410.", "order_id"), turn(1, "customer", "Hi.")]
    assert conversation_problems(a_task(must_ask=["order_id"]), trace) == []


def test_a_brief_mode_trial_has_no_turns_and_is_not_judged_on_the_conversation_rules():
    task = a_task(must_ask=["email"], communicate=["ticket_id", "refund_amount"])
    brief = [call(1, FIND, arguments={"email": "ana@example.com"}), created(2)]
    assert conversation_problems(task, brief) == []
    assert "conversation" not in score(task, EMPTY, brief).failed_parts


def test_a_broken_conversation_rule_fails_the_part_conversation_of_the_score():
    task = a_task(must_ask=["email"])
    trace = [turn(1, "customer", "Hi."), created(2)]
    scored = score(task, EMPTY, trace)
    assert scored.conversation == [f"must_ask: call #2 ({CREATE}) wrote before the customer gave email"]
    assert scored.failed_parts == ["conversation"]
    assert not scored.passed


def test_the_call_rules_count_calls_and_not_the_turns_between_them():
    trace = [turn(1, "customer", "Hi."), call(2, FIND), turn(3, "agent", "Which order?"), created(4)]
    assert tool_calls(trace) == [trace[1], trace[3]]
    assert rule_problems(CallRules(max_calls=2, must_call=[CREATE]), trace) == []


def test_the_ticket_number_is_told_when_an_agent_turn_after_the_create_names_it_in_any_spacing():
    task = a_task(communicate=["ticket_id"])
    told = [turn(1, "customer", "Hi."), created(2), turn(3, "agent", "Done: your ticket is t 2026 0401.")]
    assert conversation_problems(task, told) == []
    untold = [turn(1, "customer", "Hi."), created(2), turn(3, "agent", "Done, a ticket is open.")]
    assert conversation_problems(task, untold) == [
        f"communicate: no agent turn after call #2 ({CREATE}) told the ticket number, T-2026-0401"
    ]


def test_a_ticket_number_said_before_the_call_that_made_it_or_by_the_customer_is_not_told():
    task = a_task(communicate=["ticket_id"])
    trace = [turn(1, "customer", "Is it T-2026-0401?"), turn(2, "agent", "T-2026-0401 maybe"), created(3)]
    assert conversation_problems(task, trace) == [
        f"communicate: no agent turn after call #3 ({CREATE}) told the ticket number, T-2026-0401"
    ]


def test_a_queried_ticket_is_told_from_the_query_and_no_ticket_at_all_is_nothing_told():
    task = a_task(communicate=["ticket_id"])
    queried = call(2, QUERY, arguments={"ticket_id": "T-2026-0303"}, result={"ticket_id": "T-2026-0303"})
    assert conversation_problems(task, [turn(1, "customer", "Hi."), queried, turn(3, "agent", "T-2026-0303")]) == []
    assert conversation_problems(task, [turn(1, "customer", "Hi."), call(2, FIND)]) == [
        "communicate: no call produced the ticket number to tell"
    ]


def test_a_queried_tickets_stage_is_told_in_words_and_another_stage_or_none_fails():
    task = a_task(communicate=["stage"])
    queried = call(2, QUERY, arguments={"ticket_id": "T-2026-0325"}, result={"stage": "awaiting_return"})
    opening = turn(1, "customer", "Where is my return?")
    assert conversation_problems(task, [opening, queried, turn(3, "agent", "It is awaiting return.")]) == []
    assert conversation_problems(task, [opening, queried, turn(3, "agent", "It is under review.")]) == [
        "communicate: no agent turn after call #2 (after_sales_query_ticket) told the ticket's stage, awaiting_return"
    ]
    assert conversation_problems(task, [opening, call(2, FIND)]) == [
        "communicate: no call produced the ticket's stage to tell"
    ]


def test_the_refund_amount_is_told_in_any_of_its_usual_forms():
    task = a_task(communicate=["refund_amount"])
    for said in ("€49.90", "49.90 EUR", "EUR 49.90", "49.9", "4990 cents", "49,90 €", "49.90 euros"):
        trace = [turn(1, "customer", "Hi."), estimated(2), turn(3, "agent", f"You get {said} back.")]
        assert conversation_problems(task, trace) == [], said


def test_a_wrong_amount_another_currency_or_digits_inside_an_id_do_not_tell_the_refund_amount():
    task = a_task(communicate=["refund_amount"])
    problem = f"communicate: no agent turn after call #2 ({ESTIMATE}) told the refund amount, €49.90"
    for said in ("€49.00", "$49.90", "49.90 GBP", "499 cents", "ticket T-2026-4990", "order O-2026-004990"):
        trace = [turn(1, "customer", "Hi."), estimated(2), turn(3, "agent", f"Noted: {said}.")]
        assert conversation_problems(task, trace) == [problem], said


def test_the_refund_amount_is_the_latest_figure_and_may_be_told_after_the_first_call_that_showed_it():
    task = a_task(communicate=["refund_amount"])
    told_early = [turn(1, "customer", "Hi."), estimated(2), turn(3, "agent", "That is €49.90."), created(4)]
    assert conversation_problems(task, told_early) == []
    changed = [estimated(1), turn(2, "agent", "That is €49.90."), created(3, amount=3990)]
    assert conversation_problems(task, changed) == [
        f"communicate: no agent turn after call #3 ({CREATE}) told the refund amount, €39.90"
    ]


def test_a_large_yuan_amount_is_told_with_thousands_commas_or_without_decimals():
    task = a_task(communicate=["refund_amount"])
    for said in ("¥1,299.00", "¥1,299", "1299 yuan", "CNY 1,299.00", "129900 fen"):
        trace = [estimated(1, total=129900, currency="CNY"), turn(2, "agent", f"You get {said}.")]
        assert conversation_problems(task, trace) == [], said


def test_a_refusal_told_with_its_reason_after_the_refused_call_passes():
    task = a_task(communicate=["refusal"])
    told = [refused(1), turn(2, "agent", "Sorry, skincare can't be returned once it has been delivered.")]
    assert conversation_problems(task, told) == []
    hygiene = [refused(1), turn(2, "agent", "Unfortunately beauty items are excluded for hygiene reasons.")]
    assert conversation_problems(task, hygiene) == []


def test_a_refusal_not_told_or_a_refund_promised_instead_fails_naming_the_refusal():
    task = a_task(communicate=["refusal"])
    problem = (
        f"communicate: no agent turn after call #1 ({ESTIMATE}) told why it was refused: "
        "SK-II Facial Treatment Essence (COS-001) cannot be returned once delivered."
    )
    for said in ("Your return is approved, the refund is on its way.", "I cannot help with that.", "Goodbye."):
        assert conversation_problems(task, [refused(1), turn(2, "agent", said)]) == [problem], said
    early = [turn(1, "agent", "Skincare can't be returned once delivered."), refused(2)]
    assert conversation_problems(task, early) == [problem.replace("#1", "#2")]


def test_a_refusal_the_agent_got_past_needs_no_telling_and_without_a_standing_refusal_none_was_told():
    task = a_task(communicate=["refusal"])
    conflict = refused(2, CREATE, 'idempotency_key "k-1" was already used for a different request. One key.')
    passed = call(3, CREATE, arguments={"order_id": "O-2026-001433", "line_no": 1})
    told = turn(4, "agent", "Sorry, skincare can't be returned once it has been delivered.")
    assert conversation_problems(task, [refused(1), conflict, passed, told]) == []
    nothing = "communicate: no rule refusal stood (none came, or the agent got past it), so none was told"
    assert conversation_problems(task, [conflict, passed, turn(4, "agent", "Done.")]) == [nothing]
    assert conversation_problems(task, [call(1, FIND), turn(2, "agent", "Done.")]) == [nothing]


def test_a_fact_the_customer_knows_is_told_by_any_agent_turn_with_numbers_normalised():
    task = a_task(communicate=["email", "line_no"])
    trace = [turn(1, "agent", "I have ANA@example.com and line one."), call(2, FIND)]
    assert conversation_problems(task, trace) == []
    assert conversation_problems(task, [turn(1, "agent", "Thanks."), call(2, FIND)]) == [
        "communicate: no agent turn told email (ana@example.com)",
        "communicate: no agent turn told line_no (1)",
    ]

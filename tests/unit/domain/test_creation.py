"""Rules for opening tickets, without a database."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from aftersales.domain.creation import (
    check_no_open_ticket,
    check_quote,
    check_refund_method,
    confirmation_message,
    differing_fields,
    needs_review,
)
from aftersales.domain.enums import ReasonCode, RefundMethod, TicketKind
from aftersales.domain.quotes import Quote
from aftersales.domain.refunds import NO_REFUND
from aftersales.domain.rule_codes import RuleCode
from tests.support.creation import ticket_request
from tests.support.refusals import refused_by

BOTH = [RefundMethod.ORIGINAL_PAYMENT, RefundMethod.STORE_CREDIT]


def test_the_remembered_arguments_cover_every_argument_but_the_key():
    assert ticket_request().arguments() == ticket_request(idempotency_key="another-key-1").arguments()
    assert ticket_request().arguments() != ticket_request(quantity=2).arguments()
    assert ticket_request().arguments()["reason_code"] == "defective"


def test_differing_fields_are_named_in_a_stable_order():
    assert differing_fields(ticket_request().arguments(), ticket_request(quantity=2, line_no=3).arguments()) == [
        "line_no",
        "quantity",
    ]


def test_exchanges_and_repairs_take_no_refund_method_and_the_message_says_to_leave_it_out():
    with refused_by(RuleCode.REFUND_METHOD_NOT_APPLICABLE) as refusal:
        check_refund_method(TicketKind.EXCHANGE, RefundMethod.STORE_CREDIT, [])
    assert "'store_credit'" in refusal.value.what and "exchange" in refusal.value.what
    assert refusal.value.next_step == "Call again without refund_method."


def test_a_method_the_order_cannot_refund_to_is_refused_with_the_options():
    with refused_by(RuleCode.REFUND_METHOD_UNAVAILABLE) as refusal:
        check_refund_method(TicketKind.REFUND_ONLY, RefundMethod.ORIGINAL_PAYMENT, [RefundMethod.STORE_CREDIT])
    assert "'original_payment'" in refusal.value.what and "can be refunded to: store_credit" in refusal.value.rule
    assert "choose store_credit" in refusal.value.next_step
    check_refund_method(TicketKind.REFUND_ONLY, RefundMethod.ORIGINAL_PAYMENT, BOTH)


def test_a_quote_for_another_quantity_or_reason_does_not_match_and_says_which():
    at = datetime(2026, 11, 30, 10, tzinfo=UTC)
    quote = Quote("q", "alice", "O-2026-000001", 1, 2, ReasonCode.DAMAGED, "EUR", NO_REFUND, at, at + timedelta(1))
    with refused_by(RuleCode.QUOTE_MISMATCH) as refusal:
        check_quote(quote, ticket_request(quote_id="q"))
    assert "quantity: quote 2, request 1; reason_code: quote 'damaged'" in refusal.value.what
    assert "after_sales_estimate_refund" in refusal.value.next_step
    check_quote(replace(quote, quantity=1, reason=ReasonCode.DEFECTIVE), ticket_request(quote_id="q"))


def test_a_quote_for_an_exchange_or_a_repair_is_refused_whatever_it_was_made_for():
    at = datetime(2026, 11, 30, 10, tzinfo=UTC)
    quote = Quote("q-1", "alice", "O-2026-000001", 1, 1, ReasonCode.DEFECTIVE, "EUR", NO_REFUND, at, at + timedelta(1))
    for kind in (TicketKind.EXCHANGE, TicketKind.REPAIR):
        with refused_by(RuleCode.QUOTE_NOT_APPLICABLE) as refusal:
            check_quote(quote, ticket_request(quote_id="q-1", kind=kind, refund_method=None))
        assert f"quote_id q-1 was given for a {kind.value} ticket" in refusal.value.what
        assert refusal.value.next_step == "Call again without quote_id."


def test_an_open_ticket_on_the_line_is_named_with_the_tool_to_use():
    with refused_by(RuleCode.LINE_HAS_OPEN_TICKET) as refusal:
        check_no_open_ticket("T-2026-0007", "O-2026-000001", 1)
    assert "O-2026-000001 line 1 already has an open ticket, T-2026-0007" in refusal.value.what
    assert "after_sales_query_ticket with ticket_id T-2026-0007" in refusal.value.next_step
    check_no_open_ticket(None, "O-2026-000001", 1)


@pytest.mark.parametrize(
    ("total", "recent", "review"),
    [(300000, 0, False), (300001, 0, True), (100, 2, False), (100, 3, True)],
)
def test_large_refunds_and_busy_customers_go_to_manual_review(total, recent, review):
    assert needs_review(total, 300000, recent, 3) is review


def test_the_confirmation_states_item_amount_and_method():
    text = confirmation_message("Dyson V15", 1, 499000, "CNY", RefundMethod.STORE_CREDIT)
    assert "1 x Dyson V15" in text and "¥4,990.00" in text and "as store credit" in text

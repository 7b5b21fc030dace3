"""seeding/ticket_builder.py, the one ticket builder: numbered in creation order, reviewed by the live rule."""

import random
import re
from datetime import UTC, datetime, timedelta

from aftersales.domain.enums import ReasonCode, RefundMethod, TicketKind, TicketStatus
from aftersales.domain.policy import THRESHOLDS
from aftersales.domain.refunds import LineFacts
from aftersales.domain.tickets import TICKET_NUMBER_PATTERN, WORDS_IN_TIMELINE, customer_words, ticket_number
from aftersales.seeding.ticket_builder import Plan, SeedLine, build, open_for_days, schedule

DELIVERED = datetime(2025, 12, 1, tzinfo=UTC)


def line(customer: str, price: int = 9900) -> SeedLine:
    return SeedLine("O-2025-000001", 1, customer, DELIVERED, True, True, 15, 24, LineFacts(price, 1, 0, price, 0, 0))


def plan(customer: str, days: float, price: int = 9900, status: TicketStatus = TicketStatus.COMPLETED) -> Plan:
    created = DELIVERED + timedelta(days=days)
    return Plan(
        line(customer, price), TicketKind.REFUND_ONLY, status, ReasonCode.DEFECTIVE, RefundMethod.STORE_CREDIT, created
    )


def test_tickets_are_numbered_per_year_in_creation_order():
    scheduled, sequences = schedule([plan("C-1", 40), plan("C-2", 3), plan("C-3", 10)], THRESHOLDS)
    assert [(s.ticket_id, s.plan.line.customer_id) for s in scheduled] == [
        ("T-2025-0001", "C-2"),
        ("T-2025-0002", "C-3"),
        ("T-2026-0001", "C-1"),
    ]
    assert sequences == {2025: 2, 2026: 1}


def test_recent_counts_only_the_customers_own_tickets_within_the_review_window():
    days = [0, 10, 20, 29.5, 45]
    scheduled, _ = schedule([plan("C-1", d) for d in days] + [plan("C-2", 21)], THRESHOLDS)
    recent = {(s.plan.line.customer_id, (s.plan.created - DELIVERED).days): s.recent for s in scheduled}
    assert [recent[("C-1", int(d))] for d in days] == [0, 1, 2, 3, 2]
    assert recent[("C-2", 21)] == 0


def test_a_ticket_after_three_recent_ones_of_its_customer_is_reviewed_like_a_large_refund():
    scheduled, _ = schedule([plan("C-1", d) for d in (0, 1, 2, 3)] + [plan("C-2", 1, price=300001)], THRESHOLDS)
    reviewed = {}
    for ticket in scheduled:
        _, events = build(random.Random(1), ticket, DELIVERED + timedelta(days=60), THRESHOLDS)
        reviewed[ticket.ticket_id] = any(event.value == "review_started" for _, event, _, _ in events)
    # In creation order: C-1 on days 0 and 1, C-2's large refund on day 1, C-1 on days 2 and 3.
    assert [reviewed[s.ticket_id] for s in scheduled] == [False, False, True, False, True]


def test_a_repair_is_open_for_the_warranty_in_whole_months():
    assert open_for_days(line("C-1"), TicketKind.REPAIR) == 730  # 2025-12-01 to 2027-12-01
    assert open_for_days(line("C-1"), TicketKind.EXCHANGE) == 15


def test_every_ticket_number_matches_the_pattern_the_tools_publish():
    assert all(re.match(TICKET_NUMBER_PATTERN, ticket_number(2026, n)) for n in (1, 42, 9999, 10000))


def test_a_timeline_quotes_the_customers_words_whole_up_to_its_limit_and_cut_with_an_ellipsis_beyond():
    fits, longer = "x" * WORDS_IN_TIMELINE, "y" * (WORDS_IN_TIMELINE + 1)
    assert customer_words(fits) == fits
    assert customer_words(longer) == "y" * (WORDS_IN_TIMELINE - 3) + "..." and len(customer_words(longer)) == 120

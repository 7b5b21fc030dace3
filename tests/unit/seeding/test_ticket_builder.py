"""seeding/ticket_builder.py, the one ticket builder: numbered in creation order, reviewed by the live rule,
and a story's open ticket current on whatever day the baseline is loaded.
"""

import random
import re
from datetime import UTC, date, datetime, timedelta

import pytest
from freezegun import freeze_time

from aftersales.clock import now
from aftersales.domain.enums import EventType, ReasonCode, RefundMethod, Stage, TicketKind, TicketStatus
from aftersales.domain.policy import THRESHOLDS
from aftersales.domain.refunds import LineFacts
from aftersales.seeding.ticket_builder import Plan, SeedLine, build, keep_current, open_for_days, schedule
from aftersales.services.ticket_queries import query_ticket
from tests.support.fakes import FakeDatabase, FakeUnitOfWork

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


ANCHOR = datetime(2026, 11, 30, tzinfo=UTC)


def under_review(opened: datetime) -> tuple[dict, list]:
    """A ticket row opened at `opened` and queued for review half an hour later, with its timeline."""
    queued = opened + timedelta(minutes=30)
    row = {"id": "T-2026-0042", "kind": "return_and_refund", "status": "under_review"}
    row |= {"created_at": opened, "updated_at": queued}
    events = [(opened, EventType.CREATED, "customer", "Opened."), (queued, EventType.REVIEW_STARTED, "system", "")]
    return row, events


@pytest.mark.parametrize("moment", ["2027-03-14 00:00:01", "2027-03-14 23:59:59"])
def test_every_open_story_tickets_next_step_lies_ahead_on_the_day_the_baseline_is_loaded(baseline, moment):
    with freeze_time(moment):
        database, today = FakeDatabase(baseline, now()), now().date()
        views = {
            key: query_ticket(FakeUnitOfWork(database), story["ticket_id"])
            for key, story in baseline.stories.items()
            if "ticket_id" in story
        }
    open_views = {key: view for key, view in views.items() if view.stage is not Stage.CLOSED}
    assert {"ticket_under_review", "email_only_return_under_review", "ticket_refunding"} <= set(open_views)
    for key, view in open_views.items():
        [due] = re.findall(r"by (\d{4}-\d{2}-\d{2})", view.next_step)
        assert date.fromisoformat(due) > today, (key, view.next_step)


def test_an_overdue_story_ticket_moves_forward_whole_days_with_its_timeline_and_keeps_its_number():
    row, events = under_review(datetime(2026, 11, 27, 10, 51, tzinfo=UTC))  # decided by 11-29: a day late
    moved, timeline = keep_current(row, events, ANCHOR)
    assert (moved["id"], moved["created_at"]) == (row["id"], datetime(2026, 11, 29, 10, 51, tzinfo=UTC))
    assert moved["updated_at"] == row["updated_at"] + timedelta(days=2)
    assert [at for at, *_ in timeline] == [at + timedelta(days=2) for at, *_ in events]
    assert [rest for _, *rest in timeline] == [rest for _, *rest in events]


def test_a_story_ticket_already_current_or_closed_is_left_as_it_is():
    current = under_review(datetime(2026, 11, 29, 0, 0, tzinfo=UTC))  # decided by 12-01
    assert keep_current(*current, ANCHOR) == current
    closed_row, closed_events = under_review(datetime(2026, 11, 2, tzinfo=UTC))
    closed = ({**closed_row, "status": "completed"}, closed_events)
    assert keep_current(*closed, ANCHOR) == closed


def test_a_story_ticket_that_could_only_be_current_by_ending_after_the_anchor_stops_the_generator():
    # Queued at 23:20, it must move two days, to 23:20 on the anchor's eve: past the hour before the anchor where
    # every seeded timeline ends.
    row, events = under_review(datetime(2026, 11, 27, 22, 50, tzinfo=UTC))
    with pytest.raises(RuntimeError, match="T-2026-0042 cannot be opened late enough"):
        keep_current(row, events, ANCHOR)

"""Seeded tickets: a story's open ticket reads as current on whatever day the baseline is loaded."""

import re
from datetime import UTC, date, datetime, timedelta

import pytest
from freezegun import freeze_time

from aftersales.clock import now
from aftersales.domain.enums import EventType, Stage
from aftersales.seeding.ticket_builder import keep_current
from aftersales.services.ticket_queries import query_ticket
from tests.support.fakes import FakeDatabase, FakeUnitOfWork

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

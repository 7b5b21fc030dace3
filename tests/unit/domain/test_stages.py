"""Stage derivation and next-step wording."""

from datetime import UTC, datetime

import pytest

from aftersales.domain.enums import RefundMethod, Stage, TicketKind, TicketStatus
from aftersales.domain.policy import KIND_STATUSES
from aftersales.domain.stages import next_step, next_step_due, stage_of

SINCE = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("kind", "status", "stage"),
    [
        (TicketKind.REFUND_ONLY, TicketStatus.UNDER_REVIEW, Stage.REVIEW),
        (TicketKind.REFUND_ONLY, TicketStatus.APPROVED, Stage.REFUND),
        (TicketKind.RETURN_AND_REFUND, TicketStatus.APPROVED, Stage.AWAITING_RETURN),
        (TicketKind.EXCHANGE, TicketStatus.AWAITING_RETURN, Stage.AWAITING_RETURN),
        (TicketKind.REPAIR, TicketStatus.IN_REPAIR, Stage.REPAIR),
        (TicketKind.RETURN_AND_REFUND, TicketStatus.REFUNDING, Stage.REFUND),
        (TicketKind.REPAIR, TicketStatus.COMPLETED, Stage.CLOSED),
        (TicketKind.EXCHANGE, TicketStatus.REJECTED, Stage.CLOSED),
        (TicketKind.REFUND_ONLY, TicketStatus.CANCELLED, Stage.CLOSED),
    ],
)
def test_each_status_maps_to_the_stage_a_customer_understands(kind, status, stage):
    assert stage_of(kind, status) is stage


def test_every_status_a_kind_can_reach_has_a_stage_and_a_next_step():
    for kind, statuses in KIND_STATUSES.items():
        for status in statuses:
            stage_of(kind, status)
            assert next_step(kind, status, SINCE, "¥10.00", RefundMethod.STORE_CREDIT)


def test_an_awaiting_return_next_step_gives_the_ship_by_date_fourteen_days_on():
    text = next_step(
        TicketKind.RETURN_AND_REFUND, TicketStatus.AWAITING_RETURN, SINCE, "¥1,299.00", RefundMethod.ORIGINAL_PAYMENT
    )
    assert "2026-12-04" in text
    assert "¥1,299.00 to the original payment method" in text


def test_a_review_next_step_gives_the_decision_date_two_days_on():
    assert "2026-11-22" in next_step(TicketKind.REPAIR, TicketStatus.UNDER_REVIEW, SINCE, None, None)


def test_a_closed_ticket_has_nothing_more_to_do():
    assert next_step(TicketKind.EXCHANGE, TicketStatus.COMPLETED, SINCE, None, None).startswith("Nothing more")


def test_a_newly_approved_return_gives_the_customer_fifteen_days_to_ship():
    text = next_step(TicketKind.EXCHANGE, TicketStatus.APPROVED, SINCE, None, None)
    assert "by 2026-12-05" in text  # one day for the label, fourteen to ship


def test_the_date_a_next_step_states_is_when_it_is_due_and_a_closed_ticket_has_none():
    for kind, statuses in KIND_STATUSES.items():
        for status in statuses:
            due = next_step_due(kind, status, SINCE)
            text = next_step(kind, status, SINCE, "¥10.00", RefundMethod.STORE_CREDIT)
            assert (due is None) == (not status.is_open), (kind, status)
            assert due is None or f"by {due:%Y-%m-%d}" in text, (kind, status)

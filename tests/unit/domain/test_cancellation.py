"""Rules for withdrawing tickets, without a database: the stages that allow it, the refusal, the question."""

import pytest

from aftersales.domain.cancellation import check_cancellable, confirmation_message
from aftersales.domain.enums import Stage, TicketKind, TicketStatus
from aftersales.domain.errors import RuleViolation
from aftersales.domain.policy import CANCELLABLE, KIND_STATUSES, NOT_CANCELLABLE
from aftersales.domain.rule_codes import RuleCode
from aftersales.domain.stages import stage_of
from tests.support.cancellation import cancel_request

EVERY_PAIR = [(kind, status) for kind, statuses in KIND_STATUSES.items() for status in statuses]


def refusal(kind: TicketKind, status: TicketStatus) -> RuleViolation | None:
    try:
        check_cancellable("T-2026-0042", kind, status)
    except RuleViolation as error:
        return error
    return None


def test_every_stage_either_allows_cancelling_or_says_why_not_and_what_to_do_instead():
    assert set(CANCELLABLE).isdisjoint(NOT_CANCELLABLE)
    assert set(CANCELLABLE) | set(NOT_CANCELLABLE) == set(Stage)


@pytest.mark.parametrize(("kind", "status"), EVERY_PAIR)
def test_a_ticket_can_be_cancelled_exactly_in_the_stages_the_policy_names(kind, status):
    error = refusal(kind, status)
    assert (error is None) == (stage_of(kind, status) in CANCELLABLE)
    assert error is None or error.code is RuleCode.TICKET_NOT_CANCELLABLE


@pytest.mark.parametrize(
    ("kind", "status", "allowed"),
    [
        (TicketKind.REFUND_ONLY, TicketStatus.UNDER_REVIEW, True),
        (TicketKind.RETURN_AND_REFUND, TicketStatus.APPROVED, True),
        (TicketKind.EXCHANGE, TicketStatus.AWAITING_RETURN, True),
        (TicketKind.REPAIR, TicketStatus.AWAITING_RETURN, True),
        (TicketKind.REFUND_ONLY, TicketStatus.APPROVED, False),  # approved refund_only is already in the refund stage
        (TicketKind.REPAIR, TicketStatus.IN_REPAIR, False),
        (TicketKind.RETURN_AND_REFUND, TicketStatus.REFUNDING, False),
        (TicketKind.EXCHANGE, TicketStatus.COMPLETED, False),
        (TicketKind.REFUND_ONLY, TicketStatus.REJECTED, False),
        (TicketKind.REPAIR, TicketStatus.CANCELLED, False),
    ],
)
def test_review_and_awaiting_return_can_be_cancelled_repair_refund_and_closed_cannot(kind, status, allowed):
    assert (refusal(kind, status) is None) is allowed


@pytest.mark.parametrize(
    ("kind", "status", "stage", "instead"),
    [
        (TicketKind.REPAIR, TicketStatus.IN_REPAIR, "repair", "when the repaired item ships back"),
        (TicketKind.RETURN_AND_REFUND, TicketStatus.REFUNDING, "refund", "when the money arrives"),
        (TicketKind.EXCHANGE, TicketStatus.COMPLETED, "closed", "start again with after_sales_estimate_refund"),
    ],
)
def test_a_refusal_says_which_stage_the_rule_and_what_to_tell_the_customer_instead(kind, status, stage, instead):
    error = refusal(kind, status)
    assert error is not None
    assert error.what == f"Ticket T-2026-0042 cannot be cancelled: it is in the {stage} stage (status {status})."
    assert error.rule.startswith("A ticket can be cancelled only in the review or awaiting_return stage;")
    assert error.next_step.startswith("Do not retry;") and instead in error.next_step


def test_the_remembered_arguments_are_the_ticket_and_the_customers_words_but_not_the_key():
    first, retry = cancel_request("T-2026-0042"), cancel_request("T-2026-0042")
    remembered = {"ticket_id": "T-2026-0042", "reason": first.reason, "channel": None}
    assert first.arguments() == retry.arguments() == remembered
    assert cancel_request("T-2026-0042", reason="Changed my mind.").arguments() != first.arguments()


def test_the_question_names_the_ticket_the_item_and_what_the_customer_gives_up():
    refund = confirmation_message("T-2026-0042", TicketKind.RETURN_AND_REFUND, 2, "FreeBuds Pro", "¥2,164.20")
    repair = confirmation_message("T-2026-0043", TicketKind.REPAIR, 1, "DJI Mini 4", None)
    assert refund == (
        "Cancel ticket T-2026-0042 (return and refund of 2 x FreeBuds Pro)? If you confirm, the item is not to be "
        "sent back and the refund of ¥2,164.20 will not be paid. This cannot be undone. Please confirm with the "
        "customer."
    )
    assert "will not be repaired" in repair and "None" not in repair

"""The policy text agents read: every fact comes from the values the rules apply, and its version follows them."""

import hashlib
from dataclasses import replace
from datetime import timedelta

import pytest

from aftersales.domain.cancellation import check_cancellable
from aftersales.domain.enums import ReasonCode, TicketKind
from aftersales.domain.errors import RuleViolation
from aftersales.domain.policy import (
    CANCELLABLE,
    CATEGORY_POLICIES,
    KIND_STATUSES,
    NOT_CANCELLABLE,
    REFUND_METHODS,
    SELLER_AT_FAULT,
    STATUS_SLA,
    THRESHOLDS,
)
from aftersales.domain.policy_text import render_policy
from aftersales.domain.refunds import LineFacts, compute_refund
from aftersales.domain.rule_codes import RuleCode
from aftersales.domain.stages import stage_of

QUOTES, KEYS = timedelta(minutes=30), timedelta(hours=24)


def section(markdown: str, title: str) -> str:
    """The text of one `## title` section."""
    return markdown.split(f"## {title}\n\n", 1)[1].split("\n## ", 1)[0]


def rows(table_text: str) -> list[list[str]]:
    """The cells of a Markdown table's body rows."""
    lines = [line for line in table_text.splitlines() if line.startswith("| ")][2:]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]


@pytest.fixture
def text() -> str:
    return render_policy(THRESHOLDS, QUOTES, KEYS).markdown


def test_every_category_has_its_window_and_restocking_fee_in_the_table(text):
    table = rows(section(text, "Return windows and restocking fees"))
    assert table == [
        [c.name, f"{c.return_window_days} days", f"{c.restocking_fee_bps / 100:g}%"] for c in CATEGORY_POLICIES
    ]


def test_the_reasons_are_split_by_fault_as_the_refund_rule_splits_them(text):
    at_fault, not_at_fault = section(text, "Whose fault it is, and shipping").splitlines()[:2]
    for reason in ReasonCode:
        assert (reason.value in at_fault, reason.value in not_at_fault) == (
            reason in SELLER_AT_FAULT,
            reason not in SELLER_AT_FAULT,
        )


def test_the_text_says_an_order_that_shipped_free_has_no_shipping_to_refund_as_the_rule_computes(text):
    at_fault = section(text, "Whose fault it is, and shipping").splitlines()[0]
    assert "an order that shipped free has none to refund" in at_fault
    free = LineFacts(10_000, 1, 0, order_goods_minor=10_000, shipping_fee_minor=0, restocking_fee_bps=0)
    for reason in SELLER_AT_FAULT:
        assert compute_refund(free, 1, reason, TicketKind.RETURN_AND_REFUND).shipping_refund_minor == 0


def test_refund_methods_by_payment_are_the_policys(text):
    table = rows(section(text, "Where refunds go"))
    assert [row[0] for row in table] == [payment.value for payment in REFUND_METHODS]
    for (_, allowed), methods in zip(table, REFUND_METHODS.values(), strict=True):
        assert sorted(allowed.replace(" or ", ", ").split(", ")) == sorted(m.value for m in methods)


def test_the_configured_thresholds_and_lifetimes_are_stated():
    changed = replace(THRESHOLDS, confirm_above_minor=20_000, review_recent_tickets=2, review_window=timedelta(days=10))
    text = render_policy(changed, timedelta(minutes=5), timedelta(hours=12)).markdown
    assert "Refunds above ¥200.00 are confirmed by the customer" in text
    assert "Refunds above ¥3,000.00, and tickets of a customer who opened 2 or more tickets within 10 days" in text
    assert "held as a quote for 5 minutes" in text and "a key is kept 12 hours" in text


def test_the_stages_the_text_says_can_be_cancelled_are_exactly_those_the_rule_allows(text):
    allowed_list, refused_list = section(text, "Cancelling a ticket").split("It cannot be cancelled")
    said_allowed = {line[2:].split(":")[0] for line in allowed_list.splitlines() if line.startswith("- ")}
    said_refused = {line[2:].split(":")[0] for line in refused_list.splitlines() if line.startswith("- ")}
    for kind, statuses in KIND_STATUSES.items():
        for status in statuses:
            stage = stage_of(kind, status).value
            try:
                check_cancellable("T-2026-0042", kind, status)
                allowed = True
            except RuleViolation:
                allowed = False
            assert (stage in said_allowed, stage in said_refused) == (allowed, not allowed), (kind, status)
    assert all(refusal.instead in text for refusal in NOT_CANCELLABLE.values()) and len(said_allowed) == len(
        CANCELLABLE
    )


def test_every_rule_code_is_listed_with_its_meaning(text):
    assert rows(section(text, "Rule codes")) == [[f"`{code.value}`", code.meaning] for code in RuleCode]


def test_every_status_duration_is_listed(text):
    table = rows(section(text, "How long each step usually takes"))
    assert [row[0] for row in table] == [status.value for status in STATUS_SLA]


def test_the_version_is_a_hash_of_the_text_and_changes_with_any_setting():
    policy = render_policy(THRESHOLDS, QUOTES, KEYS)
    body = policy.markdown.split("\n\n", 2)[2]
    assert policy.version == hashlib.sha256(body.rstrip("\n").encode()).hexdigest()[:12]
    assert f"Version `{policy.version}`" in policy.markdown
    assert render_policy(THRESHOLDS, QUOTES, KEYS) == policy  # the same settings pin the same text
    others = [
        render_policy(replace(THRESHOLDS, review_above_minor=300_001), QUOTES, KEYS),
        render_policy(THRESHOLDS, timedelta(minutes=31), KEYS),
        render_policy(THRESHOLDS, QUOTES, timedelta(hours=25)),
    ]
    assert len({policy.version, *(other.version for other in others)}) == 4

"""Estimates through the services on a fake unit of work: the policy per category and reason, kept as a quote."""

from datetime import UTC, datetime, timedelta

import pytest
from freezegun import freeze_time

from aftersales.domain.errors import HandleExpired, NotFound
from aftersales.domain.rule_codes import RuleCode
from aftersales.services.quotes import quote_for_use
from tests.support.clients import ALICE, BOB
from tests.support.creation import POLICY, ticket_request
from tests.support.estimates import ESTIMATES, FIELDS
from tests.support.fake_services import create, estimate
from tests.support.fakes import FakeUnitOfWork
from tests.support.refusals import refused_by


def test_another_callers_quote_is_unknown_and_an_expired_one_says_to_estimate_again(database, stories):
    order_id = stories["vip_laptop_recent"]["order_id"]
    start = datetime(2026, 12, 1, 14, 2, tzinfo=UTC)
    with freeze_time(start):
        quote = estimate(database, order_id)
    with pytest.raises(NotFound, match="is available to you"):
        create(database, ticket_request(order_id, quote_id=quote.quote_id), caller=BOB, at=start + timedelta(minutes=1))
    with pytest.raises(HandleExpired, match="expired at 14:32 UTC.*Call after_sales_estimate_refund again"):
        create(database, ticket_request(order_id, quote_id=quote.quote_id), at=start + timedelta(minutes=30))
    with FakeUnitOfWork(database) as uow:
        assert quote_for_use(uow, ALICE, quote.quote_id, start + timedelta(minutes=29), POLICY.quote_ttl).id == (
            quote.quote_id
        )


@pytest.mark.parametrize(FIELDS, ESTIMATES)
def test_the_estimate_follows_the_policy_for_each_category_and_reason(
    database, stories, story, quantity, reason, item, fee, shipping, total
):
    quote = estimate(database, stories[story]["order_id"], reason, quantity)
    assert (quote.item_amount, quote.restocking_fee, quote.shipping_refund, quote.total) == (item, fee, shipping, total)
    assert quote.item_amount - quote.restocking_fee + quote.shipping_refund == quote.total
    assert quote.currency == "CNY" and quote.policy_notes


def test_an_estimate_is_stored_as_the_callers_quote(database, stories):
    with freeze_time("2026-12-01 14:02:00"):
        quote = estimate(database, stories["vip_laptop_recent"]["order_id"])
    assert quote.expires_at == "2026-12-01T14:32:00Z"
    assert database.tables.quotes[quote.quote_id].owner == ALICE.id


@pytest.mark.parametrize(
    ("story", "code"),
    [
        ("order_in_transit", RuleCode.ORDER_NOT_DELIVERED),
        ("order_not_shipped", RuleCode.ORDER_NOT_DELIVERED),
        ("order_cancelled", RuleCode.ORDER_CANCELLED),
        ("laptop_past_window_in_warranty", RuleCode.RETURN_WINDOW_CLOSED),
        ("rc_car_out_of_warranty", RuleCode.RETURN_WINDOW_CLOSED),
        ("non_returnable_cosmetics", RuleCode.ITEM_NOT_RETURNABLE),
    ],
)
def test_lines_that_cannot_be_returned_now_are_not_estimated(database, stories, story, code):
    with refused_by(code):
        estimate(database, stories[story]["order_id"])


def test_an_unknown_order_and_a_missing_line_say_what_to_check(database, stories):
    with pytest.raises(NotFound, match=r'No order numbered "O-2026-999999" exists.*Ask the customer'):
        estimate(database, "O-2026-999999")
    with pytest.raises(NotFound, match=r"has no line 4\. Its lines are: line 1: Lenovo ThinkPad"):
        estimate(database, stories["vip_laptop_recent"]["order_id"], line_no=4)

"""Estimating refunds and using quote handles, on the seeded database."""

import re
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from freezegun import freeze_time

from aftersales.clock import now
from aftersales.domain.enums import ReasonCode
from aftersales.domain.errors import HandleExpired, NotFound
from aftersales.domain.rule_codes import RuleCode
from aftersales.services.quotes import estimate_refund, quote_for_use
from tests.support.clients import ALICE, BOB
from tests.support.creation import POLICY
from tests.support.estimates import ESTIMATES, FIELDS
from tests.support.refusals import refused_by

TTL = POLICY.quote_ttl


def estimate(app, order_id, reason=ReasonCode.DEFECTIVE, quantity=1, line_no=1, caller=ALICE, at=None):
    return estimate_refund(app.uow(), caller, order_id, line_no, quantity, reason, at or now(), TTL)


@pytest.mark.parametrize(FIELDS, ESTIMATES)
def test_the_estimate_follows_the_policy_for_each_category_and_reason(
    app, stories, story, quantity, reason, item, fee, shipping, total
):
    quote = estimate(app, stories[story]["order_id"], reason, quantity)
    assert (quote.item_amount, quote.restocking_fee, quote.shipping_refund, quote.total) == (item, fee, shipping, total)
    assert quote.item_amount - quote.restocking_fee + quote.shipping_refund == quote.total
    assert quote.currency == "CNY" and quote.policy_notes


def test_a_quote_is_a_uuid4_that_expires_thirty_minutes_after_now(app, stories):
    with freeze_time("2026-12-01 14:02:00"):
        quote = estimate(app, stories["vip_laptop_recent"]["order_id"])
    assert uuid.UUID(quote.quote_id).version == 4
    assert quote.expires_at == "2026-12-01T14:32:00Z"


def test_gift_card_orders_refund_to_store_credit_only(app, stories):
    order_id = stories["vip_laptop_recent"]["order_id"]
    assert [m.value for m in estimate(app, order_id).refund_methods_allowed] == ["original_payment", "store_credit"]
    with app.engine.begin() as connection:
        connection.exec_driver_sql(f"UPDATE orders SET payment_method = 'gift_card' WHERE id = '{order_id}'")
    quote = estimate(app, order_id)
    assert [m.value for m in quote.refund_methods_allowed] == ["store_credit"]
    assert any("gift card" in note for note in quote.policy_notes)


def test_an_unknown_order_says_what_to_check(app):
    with pytest.raises(NotFound, match=r'No order numbered "O-2026-999999" exists.*Ask the customer'):
        estimate(app, "O-2026-999999")


def test_a_line_not_in_the_order_lists_the_lines_there_are(app, stories):
    with pytest.raises(NotFound, match=r"has no line 4\. Its lines are: line 1: Lenovo ThinkPad"):
        estimate(app, stories["vip_laptop_recent"]["order_id"], line_no=4)


def test_asking_for_more_units_than_remain_returnable_is_refused(app, stories):
    with refused_by(RuleCode.QUANTITY_NOT_AVAILABLE):
        estimate(app, stories["headphones_in_window_qty3"]["order_id"], quantity=4)


@pytest.mark.parametrize(
    ("story", "code"),
    [
        ("order_in_transit", RuleCode.ORDER_NOT_DELIVERED),
        ("order_not_shipped", RuleCode.ORDER_NOT_DELIVERED),
        ("order_cancelled", RuleCode.ORDER_CANCELLED),
    ],
)
def test_orders_not_delivered_cannot_be_estimated(app, stories, story, code):
    with refused_by(code):
        estimate(app, stories[story]["order_id"])


def test_a_closed_window_gives_the_closing_date_the_stored_delivery_makes(app, stories):
    with refused_by(RuleCode.RETURN_WINDOW_CLOSED) as refused:
        estimate(app, stories["laptop_past_window_in_warranty"]["order_id"])
    closed = (now() - timedelta(days=60) + timedelta(days=15)).date().isoformat()
    assert closed in refused.value.what


def test_a_closed_window_past_the_warranty_is_refused_as_a_closed_window(app, stories):
    with refused_by(RuleCode.RETURN_WINDOW_CLOSED):
        estimate(app, stories["rc_car_out_of_warranty"]["order_id"])


def test_a_non_returnable_item_is_refused(app, stories):
    with refused_by(RuleCode.ITEM_NOT_RETURNABLE):
        estimate(app, stories["non_returnable_cosmetics"]["order_id"])


def test_a_quote_is_usable_at_29_59_and_expired_at_30_00(app, stories):
    start = datetime(2026, 12, 1, 14, 2, tzinfo=UTC)
    quote = estimate(app, stories["vip_laptop_recent"]["order_id"], at=start)
    with app.uow() as uow:
        assert quote_for_use(uow, ALICE, quote.quote_id, start + timedelta(minutes=29, seconds=59), TTL).id == (
            quote.quote_id
        )
        with pytest.raises(HandleExpired) as expired:
            quote_for_use(uow, ALICE, quote.quote_id, start + TTL, TTL)
    assert str(expired.value) == (
        f"Quote {quote.quote_id} expired at 14:32 UTC on 2026-12-01. Quotes are held 30 minutes. "
        "Call after_sales_estimate_refund again for a fresh quote, then retry."
    )


def test_a_quote_held_under_a_minute_says_so_in_seconds(app, stories):
    start = datetime(2026, 12, 1, 14, 2, tzinfo=UTC)
    short = timedelta(seconds=45)
    order_id = stories["vip_laptop_recent"]["order_id"]
    with freeze_time(start):
        quote = estimate_refund(app.uow(write=True), ALICE, order_id, 1, 1, ReasonCode.DEFECTIVE, now(), short)
    with app.uow() as uow, pytest.raises(HandleExpired, match=r"Quotes are held 45 seconds\."):
        quote_for_use(uow, ALICE, quote.quote_id, start + short, short)
    with app.uow() as uow, pytest.raises(NotFound, match=r"are held 45 seconds\."):
        quote_for_use(uow, BOB, quote.quote_id, start, short)


def test_another_callers_quote_reads_exactly_like_a_made_up_one(app, stories):
    quote = estimate(app, stories["vip_laptop_recent"]["order_id"], caller=ALICE)
    made_up = str(uuid.uuid4())
    with app.uow() as uow:
        with pytest.raises(NotFound) as foreign:
            quote_for_use(uow, BOB, quote.quote_id, now(), TTL)
        with pytest.raises(NotFound) as unknown:
            quote_for_use(uow, BOB, made_up, now(), TTL)
    assert str(foreign.value).replace(quote.quote_id, "<id>") == str(unknown.value).replace(made_up, "<id>")


def test_purging_old_quotes_never_changes_the_answer_for_a_recently_expired_one(app, stories):
    start = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    old = estimate(app, stories["vip_laptop_recent"]["order_id"], at=start)
    # A later estimate purges quotes that expired more than a week ago, not this one.
    estimate(app, stories["cheap_tshirts_in_window"]["order_id"], at=start + timedelta(days=2))
    with app.uow() as uow, pytest.raises(HandleExpired, match=re.escape(old.quote_id)):
        quote_for_use(uow, ALICE, old.quote_id, start + timedelta(days=2), TTL)

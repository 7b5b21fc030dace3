"""Creation through the services on a fake unit of work: the rules, quotes, idempotency keys and payouts.

No database, milliseconds each; the database-only guarantees (constraints under concurrency, migrations,
the SQL itself) stay in integration/.
"""

from datetime import timedelta

import pytest

from aftersales.clock import now
from aftersales.domain.creation import TicketRequest
from aftersales.domain.enums import ReasonCode, RefundMethod, TicketKind
from aftersales.domain.errors import InputNeeded, Retryable
from aftersales.domain.rule_codes import RuleCode
from aftersales.security.payout_keys import AccountCipher
from aftersales.services import payouts
from aftersales.services.creation import Decisions, preflight
from aftersales.services.ticket_queries import query_ticket
from tests.support.clients import ALICE, BOB
from tests.support.creation import POLICY, ticket_request
from tests.support.fake_services import create, estimate
from tests.support.fakes import FakeUnitOfWork
from tests.support.payouts import ACCOUNT
from tests.support.refusals import refused_by


def test_a_small_refund_in_the_window_is_created_approved_with_its_timeline_and_committed(database, stories):
    before = database.commits
    result = create(
        database, ticket_request(stories["cheap_tshirts_in_window"]["order_id"], reason=ReasonCode.WRONG_ITEM)
    )
    assert (result.outcome, result.ticket.status, result.ticket.stage) == ("created", "approved", "awaiting_return")
    assert result.ticket.refund.amount == 10900
    assert [e.event for e in result.ticket.timeline] == ["created", "note", "approved"]
    assert database.commits == before + 1
    assert query_ticket(FakeUnitOfWork(database), result.ticket.ticket_id) == result.ticket


def test_a_refund_above_the_review_threshold_starts_under_review(database, stories):
    result = create(database, ticket_request(stories["vip_laptop_recent"]["order_id"]))
    assert (result.ticket.status, result.ticket.stage) == ("under_review", "review")


def test_a_customers_third_ticket_in_the_window_goes_to_review_even_for_a_small_refund(database, stories):
    customer = stories["cheap_tshirts_in_window"]["customer_id"]
    for ticket in database.tables.rows["tickets"][:3]:
        ticket["customer_id"], ticket["created_at"] = customer, now() - timedelta(days=2)
    result = create(database, ticket_request(stories["cheap_tshirts_in_window"]["order_id"]))
    assert result.ticket.status == "under_review"


def test_the_ticket_number_follows_the_years_counter(database, stories):
    last = max(s["last_value"] for s in database.tables.rows["ticket_sequences"] if s["year"] == now().year)
    result = create(database, ticket_request(stories["cheap_tshirts_in_window"]["order_id"]))
    assert result.ticket.ticket_id == f"T-{now().year}-{last + 1:04d}"


def test_a_broken_rule_changes_nothing(database, stories):
    before = database.tables.rows["tickets"][:]
    with refused_by(RuleCode.QUANTITY_NOT_AVAILABLE):
        create(database, ticket_request(stories["headphones_in_window_qty3"]["order_id"], quantity=4))
    assert database.tables.rows["tickets"] == before and database.tables.keys == {}


def test_a_refund_after_the_window_is_refused_but_a_warranty_repair_is_created(database, stories):
    order_id = stories["laptop_past_window_in_warranty"]["order_id"]
    with refused_by(RuleCode.RETURN_WINDOW_CLOSED):
        create(database, ticket_request(order_id))
    repair = create(
        database, ticket_request(order_id, kind=TicketKind.REPAIR, refund_method=None), decisions=Decisions()
    )
    assert repair.ticket.kind == "repair" and repair.ticket.refund is None


def test_a_repair_after_the_warranty_is_refused(database, stories):
    with refused_by(RuleCode.WARRANTY_ENDED):
        order_id = stories["rc_car_out_of_warranty"]["order_id"]
        create(database, ticket_request(order_id, kind=TicketKind.REPAIR, refund_method=None))


def test_an_exchange_with_a_refund_method_is_refused(database, stories):
    with refused_by(RuleCode.REFUND_METHOD_NOT_APPLICABLE):
        create(database, ticket_request(stories["headphones_in_window_qty3"]["order_id"], kind=TicketKind.EXCHANGE))


def test_a_refund_without_a_method_asks_for_one_when_nobody_could_choose_one_and_is_no_rule_refusal(database, stories):
    with pytest.raises(InputNeeded, match="Ask the customer whether they want original_payment or store_credit"):
        create(database, ticket_request(stories["cheap_tshirts_in_window"]["order_id"], refund_method=None))


def test_a_second_ticket_for_a_line_with_an_open_one_is_refused_naming_it(database, stories):
    order_id = stories["headphones_in_window_qty3"]["order_id"]
    first = create(database, ticket_request(order_id))
    with refused_by(RuleCode.LINE_HAS_OPEN_TICKET) as refused:
        create(database, ticket_request(order_id))
    assert first.ticket.ticket_id in refused.value.what


def test_a_completed_repair_does_not_use_up_the_units_for_a_second_repair(database, stories):
    order_id = stories["laptop_past_window_in_warranty"]["order_id"]
    first = create(
        database, ticket_request(order_id, kind=TicketKind.REPAIR, refund_method=None), decisions=Decisions()
    )
    next(t for t in database.tables.rows["tickets"] if t["id"] == first.ticket.ticket_id)["status"] = "completed"
    again = create(
        database, ticket_request(order_id, kind=TicketKind.REPAIR, refund_method=None), decisions=Decisions()
    )
    assert again.outcome == "created"


def test_a_completed_refund_keeps_its_units(database, stories):
    order_id = stories["headphones_in_window_qty3"]["order_id"]
    first = create(database, ticket_request(order_id, quantity=2))
    next(t for t in database.tables.rows["tickets"] if t["id"] == first.ticket.ticket_id)["status"] = "completed"
    with refused_by(RuleCode.QUANTITY_NOT_AVAILABLE):
        create(database, ticket_request(order_id, quantity=2))


def test_a_matching_quote_locks_the_amount_and_another_quantity_does_not_match(database, stories):
    order_id = stories["headphones_in_window_qty3"]["order_id"]
    quote = estimate(database, order_id, ReasonCode.OTHER, quantity=2)
    with refused_by(RuleCode.QUOTE_MISMATCH):
        create(database, ticket_request(order_id, quantity=1, reason=ReasonCode.OTHER, quote_id=quote.quote_id))
    locked = create(
        database, ticket_request(order_id, quantity=2, reason=ReasonCode.OTHER, quote_id=quote.quote_id.upper())
    )
    assert locked.ticket.refund.amount == quote.total == 216420


def test_the_same_key_and_arguments_replay_the_first_result_without_a_new_ticket(database, stories):
    req = ticket_request(stories["cheap_tshirts_in_window"]["order_id"])
    first = create(database, req)
    count = len(database.tables.rows["tickets"])
    again = create(database, req)
    assert again.outcome == "replayed" and again.ticket.ticket_id == first.ticket.ticket_id
    assert len(database.tables.rows["tickets"]) == count
    assert preflight(FakeUnitOfWork(database), ALICE, req, now(), POLICY).replay.outcome == "replayed"


def test_the_same_key_with_other_arguments_is_refused_naming_the_difference(database, stories):
    req = ticket_request(stories["cheap_tshirts_in_window"]["order_id"])
    create(database, req)
    changed = TicketRequest(**{**req.__dict__, "reason": ReasonCode.DAMAGED, "description": "Other words here"})
    with refused_by(RuleCode.IDEMPOTENCY_KEY_REUSED) as refused:
        create(database, changed)
    # The one check of this message's three parts: the differences with their values, the rule, the next step.
    assert "description: first 'It stopped working after two days.', now 'Other words here'" in refused.value.what
    assert "reason_code: first 'defective', now 'damaged'" in refused.value.what
    assert "intended ticket" in refused.value.rule and "make a new key" in refused.value.next_step


def test_keys_belong_to_their_caller_and_are_free_again_after_24_hours(database, stories):
    start = now()
    req = ticket_request(stories["cheap_tshirts_in_window"]["order_id"])
    create(database, req, at=start)
    with refused_by(RuleCode.LINE_HAS_OPEN_TICKET):
        create(database, req, caller=BOB, at=start)
    other_line = ticket_request(stories["headphones_in_window_qty3"]["order_id"], idempotency_key=req.idempotency_key)
    with refused_by(RuleCode.IDEMPOTENCY_KEY_REUSED):
        create(database, other_line, at=start + timedelta(hours=23, minutes=59))
    assert create(database, other_line, at=start + timedelta(hours=24)).outcome == "created"


def test_a_key_whose_first_call_is_still_creating_asks_for_a_retry(database, stories):
    req = ticket_request(stories["cheap_tshirts_in_window"]["order_id"])
    with FakeUnitOfWork(database) as uow:
        uow.idempotency.claim(
            ALICE.id,
            "after_sales_create_ticket",
            req.idempotency_key,
            req.arguments(),
            now(),
            now() + POLICY.idempotency_ttl,
        )
        uow.commit()
    with pytest.raises(Retryable, match="still being processed"):
        preflight(FakeUnitOfWork(database), ALICE, req, now(), POLICY)


def test_a_large_refund_needs_confirmation_and_a_gift_card_order_needs_no_method_choice(database, stories):
    order_id = stories["vip_laptop_recent"]["order_id"]
    checked = preflight(FakeUnitOfWork(database), ALICE, ticket_request(order_id, refund_method=None), now(), POLICY)
    assert checked.needs_confirmation(POLICY) and checked.needs_method
    next(o for o in database.tables.rows["orders"] if o["id"] == order_id)["payment_method"] = "gift_card"
    checked = preflight(FakeUnitOfWork(database), ALICE, ticket_request(order_id, refund_method=None), now(), POLICY)
    assert checked.method is RefundMethod.STORE_CREDIT and not checked.needs_method


def test_a_bank_transfer_refund_is_created_once_its_page_took_the_account_and_spends_the_page(database, stories):
    request = ticket_request(
        stories["cod_tshirts_in_window"]["order_id"],
        kind=TicketKind.REFUND_ONLY,
        reason=ReasonCode.NO_LONGER_NEEDED,
        refund_method=RefundMethod.BANK_TRANSFER,
    )
    tokens: list[str] = []
    payouts.open_page(FakeUnitOfWork(database), ALICE, request, None, now(), timedelta(minutes=30), tokens.append)
    cipher = AccountCipher(["k" * 40])
    _, payout = payouts.submit_account(FakeUnitOfWork(database), tokens[0], "Wei Zhang", ACCOUNT, "HSBC", now(), cipher)
    checked = preflight(FakeUnitOfWork(database), ALICE, request, now(), POLICY)
    assert checked.payout is not None and checked.payout.status == "submitted"
    result = create(database, request, decisions=Decisions(payout=checked.payout.payout))
    assert result.outcome == "created" and payout.account_mask in result.next_step
    with pytest.raises(payouts.PageGone, match="used"):
        payouts.page_for(FakeUnitOfWork(database), tokens[0], now())

"""The seeded world: idempotent loading, reset, and coherent records."""

import re
from collections import Counter
from datetime import timedelta

import pytest
from sqlalchemy import select

from aftersales.bootstrap import baseline_path
from aftersales.clock import as_utc, now
from aftersales.domain.enums import ReasonCode, TicketKind, TicketStatus
from aftersales.domain.policy import KIND_STATUSES
from aftersales.domain.refunds import LineFacts, compute_refund, paid_minor
from aftersales.domain.tickets import ticket_number
from aftersales.seeding import dataset, generator, loader
from aftersales.seeding.generator import generate
from aftersales.services.lines import line_context
from aftersales.storage.models import Order, Ticket, TicketEvent
from tests.support import ROOT
from tests.support.database import row_counts


def test_loading_the_seed_twice_leaves_every_row_count_unchanged(engine, baseline):
    before = row_counts(engine)
    report = loader.load(engine, baseline, now())
    assert row_counts(engine) == before
    assert set(report.inserted.values()) == {0}


def test_the_baseline_has_the_promised_size(engine):
    sizes = row_counts(engine)
    assert sizes["products"] >= 50 and sizes["categories"] >= 6
    assert (sizes["customers"], sizes["orders"], sizes["tickets"]) == (305, 1508, 403)


def test_reset_restores_the_baseline_after_changes(engine, baseline):
    before = row_counts(engine)
    with engine.begin() as connection:
        connection.execute(TicketEvent.__table__.delete().where(TicketEvent.id <= 10))
    loader.clear(engine)
    loader.load(engine, baseline, now())
    assert row_counts(engine) == before


def test_every_kind_appears_in_every_status_it_can_reach(baseline):
    seen = {(t["kind"], t["status"]) for t in baseline.tables["tickets"]}
    expected = {(k.value, s.value) for k, statuses in KIND_STATUSES.items() for s in statuses}
    assert seen == expected


def test_orders_cover_every_status_channel_and_payment_method(baseline):
    orders = baseline.tables["orders"]
    assert {o["status"] for o in orders} == {"pending", "shipped", "delivered", "cancelled"}
    assert {o["channel"] for o in orders} == {"app", "web", "miniprogram"}
    assert {o["payment_method"] for o in orders} == {"card", "wallet", "gift_card", "cash_on_delivery"}
    assert set(Counter(c["tier"] for c in baseline.tables["customers"])) == {"standard", "plus", "vip"}


def test_every_seeded_ticket_has_amounts_consistent_with_its_order_line(app):
    with app.uow() as uow:
        for ticket in uow.session.scalars(select(Ticket)):
            line, order = ticket.line, ticket.line.order
            facts = LineFacts(
                line.unit_price_minor,
                line.quantity,
                line.discount_minor,
                sum(paid_minor(x.unit_price_minor, x.quantity, x.discount_minor) for x in order.lines),
                order.shipping_fee_minor,
                line.product.category.restocking_fee_bps,
            )
            expected = compute_refund(facts, ticket.quantity, ReasonCode(ticket.reason_code), TicketKind(ticket.kind))
            assert (ticket.item_amount_minor, ticket.restocking_fee_minor, ticket.shipping_refund_minor) == (
                expected.item_amount_minor,
                expected.restocking_fee_minor,
                expected.shipping_refund_minor,
            )
            assert 1 <= ticket.quantity <= line.quantity
            paid = paid_minor(line.unit_price_minor, line.quantity, line.discount_minor)
            assert ticket.refund_total_minor <= paid + order.shipping_fee_minor
            assert ticket.customer_id == order.customer_id
            assert (ticket.refund_method is not None) == TicketKind(ticket.kind).refunds


def test_every_timeline_is_in_time_order_after_delivery_and_ends_at_the_last_update(app):
    with app.uow() as uow:
        for ticket in uow.session.scalars(select(Ticket)):
            events, _ = uow.tickets.timeline(ticket.id, 100)
            times = [as_utc(e.occurred_at) for e in events]
            assert times == sorted(times)
            assert times[0] == as_utc(ticket.created_at) > as_utc(ticket.line.order.delivered_at)
            assert times[-1] == as_utc(ticket.updated_at) <= now()
            assert events[0].type == "created"
            if ticket.status in (TicketStatus.COMPLETED, TicketStatus.REJECTED, TicketStatus.CANCELLED):
                assert events[-1].type == ticket.status


def test_the_story_records_are_what_the_seed_readme_says(app, stories):
    readme = (ROOT / "seed" / "README.md").read_text()
    for key, ids in stories.items():
        row = next(line for line in readme.splitlines() if line.startswith(f"| {key} |"))
        assert all(value in row for name, value in ids.items() if name != "sku"), key
    with app.uow() as uow:
        laptop = uow.session.get(Order, stories["vip_laptop_recent"]["order_id"])
        assert laptop.status == "delivered" and laptop.lines[0].product.category_code == "laptops"
        age = now() - as_utc(laptop.delivered_at)
        assert timedelta(days=2) < age < timedelta(days=4)
        assert uow.session.get(Ticket, stories["ticket_awaiting_return"]["ticket_id"]).status == "awaiting_return"
        assert uow.session.get(Ticket, stories["ticket_refund_store_credit_done"]["ticket_id"]).refund_method == (
            "store_credit"
        )
        assert uow.session.get(Order, stories["order_in_transit"]["order_id"]).status == "shipped"


def test_the_generator_reproduces_the_committed_baseline_byte_for_byte(tmp_path):
    out = tmp_path / "baseline.json"
    dataset.write(generate(), out)
    assert out.read_bytes() == baseline_path(ROOT / "seed").read_bytes()


def test_every_ticket_number_the_docs_mention_exists_in_the_baseline_or_is_the_next_one_opened(baseline):
    known = {t["id"] for t in baseline.tables["tickets"]}
    # The example episode (docs/tools.md) opens a ticket on a fresh baseline: the next number of the anchor's year.
    [last] = [s["last_value"] for s in baseline.tables["ticket_sequences"] if s["year"] == baseline.anchor.year]
    opened = ticket_number(baseline.anchor.year, last + 1)
    # The pages that tell the seeded world (tasks.md and worlds.md number made-up examples of their formats).
    told = [path for path in (ROOT / "docs").glob("*.md") if path.name not in ("tasks.md", "worlds.md")]
    docs = [ROOT / "README.md", *told, ROOT / "seed" / "README.md", ROOT / "aftersales" / "cli" / "serve.py"]
    mentioned = {m for doc in docs for m in re.findall(r"T-\d{4}-\d{4,}", doc.read_text())}
    assert mentioned and mentioned <= known | {opened} and opened not in known


def test_seeded_timelines_follow_the_review_policy(baseline):
    reviewed = {e["ticket_id"] for e in baseline.tables["ticket_events"] if e["type"] == "review_started"}
    tickets = baseline.tables["tickets"]
    for ticket in tickets:
        # The live rule's second half: a customer who already opened 3 tickets within 30 days is reviewed too.
        recent = sum(
            other["customer_id"] == ticket["customer_id"]
            and ticket["created_at"] - timedelta(days=30) <= other["created_at"] < ticket["created_at"]
            for other in tickets
        )
        must = ticket["status"] in ("under_review", "rejected") or ticket["refund_total_minor"] > 300000 or recent >= 3
        assert (ticket["id"] in reviewed) == must, ticket["id"]
    assert len(reviewed) > sum(t["status"] in ("under_review", "rejected") for t in tickets)


@pytest.mark.parametrize("batches", [("APPENDED_STORIES", "COD_STORIES"), ("COD_STORIES",)])
def test_the_appended_stories_move_no_row_the_world_had_without_them(baseline, monkeypatch, batches):
    for batch in batches:
        monkeypatch.setattr(generator, batch, ())
    without = generate()
    for name, rows in without.tables.items():
        if name != "ticket_sequences":
            assert baseline.tables[name][: len(rows)] == rows, name
            unchanged = ("categories", "products") + (
                () if "APPENDED_STORIES" in batches else ("tickets", "ticket_events")
            )
            assert len(baseline.tables[name]) > len(rows) or name in unchanged, name
    assert without.stories == {key: baseline.stories[key] for key in without.stories}


def test_every_story_names_its_customers_email_and_phone(baseline):
    customers = {row["id"]: row for row in baseline.tables["customers"]}
    for key, ids in baseline.stories.items():
        customer = customers[ids["customer_id"]]
        assert (ids["email"], ids["phone"]) == (customer["email"], customer["phone"]), key
    assert all(re.fullmatch(r"\+86 1\d{10}", row["phone"]) for row in customers.values())
    assert len({row["email"] for row in customers.values()}) == len(customers)


def test_the_lookup_stories_hold_what_seed_readme_says(app, stories):
    email_only = stories["email_only_headphones"]
    with app.uow() as uow:
        orders = uow.session.scalars(select(Order).where(Order.customer_id == email_only["customer_id"])).all()
        assert {o.id for o in orders} == {
            stories[key]["order_id"]
            for key in ("email_only_headphones", "email_only_return_under_review", "email_only_drone_in_repair")
        }
        assert uow.session.get(Ticket, stories["email_only_return_under_review"]["ticket_id"]).status == "under_review"
        assert uow.session.get(Ticket, stories["email_only_drone_in_repair"]["ticket_id"]).status == "in_repair"
        recent, older = (
            uow.session.get(Order, stories[k]["order_id"]) for k in ("same_product_recent", "same_product_older")
        )
        assert recent.customer_id == older.customer_id and recent.lines[0].sku == older.lines[0].sku
        refunded = line_context(uow, stories["all_units_refunded"]["order_id"], 1)
    assert refunded.committed_quantity == refunded.facts.quantity and refunded.open_ticket_id is None
    assert refunded.window_closes is not None and refunded.window_closes > now()

"""Repositories and the unit of work on a real database."""

from dataclasses import replace
from datetime import UTC, timedelta

import pytest

from aftersales.domain.enums import EventType
from aftersales.domain.lookups import CustomerKey
from aftersales.domain.tickets import TimelineEntry
from aftersales.storage.models import Customer, Ticket
from tests.support.database import count_rows


def test_the_timeline_gives_the_newest_events_oldest_first_and_the_total(app, baseline):
    busiest = max(
        {e["ticket_id"] for e in baseline.tables["ticket_events"]},
        key=lambda t: sum(1 for e in baseline.tables["ticket_events"] if e["ticket_id"] == t),
    )
    expected = sum(1 for e in baseline.tables["ticket_events"] if e["ticket_id"] == busiest)
    with app.uow() as uow:
        latest, total = uow.tickets.timeline(busiest, 3)
        every, same_total = uow.tickets.timeline(busiest, 100)
    assert total == same_total == len(every) == expected >= 4
    assert latest == every[-3:]
    assert [e.occurred_at for e in every] == sorted(e.occurred_at for e in every)


def test_an_order_line_is_found_by_order_and_line_number(app, stories):
    order_id = stories["vip_laptop_recent"]["order_id"]
    with app.uow() as uow:
        line = uow.orders.line_facts(order_id, 1)
        assert line is not None and (line.sku, line.returnable, line.committed_quantity) == ("LAP-001", True, 0)
        assert uow.orders.line_facts(order_id, 2).line_no is None
        assert uow.orders.line_facts("O-2026-999999", 1) is None


def test_every_time_read_back_from_storage_is_aware_utc(app, stories):
    story = stories["ticket_awaiting_return"]
    with app.uow() as uow:
        found = uow.tickets.view(story["ticket_id"], 10)
        assert found is not None
        times = [found.details.created_at, found.details.updated_at, *(e.occurred_at for e in found.events)]
        times += [e.occurred_at for e in uow.tickets.timeline(story["ticket_id"], 10)[0]]  # the driver's cursor
        times.append(uow.orders.line_facts(story["order_id"], 1).delivered_at)
        key = CustomerKey("customer_id", story["customer_id"], story["customer_id"])
        times += [order.placed_at for order in uow.listings.orders_of(key, None, 5)]  # a Core select
        times += [ticket.created_at for ticket in uow.listings.tickets_of(key, None, 5)]
        times.append(uow.session.get(Ticket, story["ticket_id"]).updated_at)  # the ORM
    # SQLite hands every one of them back without a zone, PostgreSQL in the session's: storage makes them UTC.
    assert len(times) > 8 and all(moment.tzinfo is UTC for moment in times)


def new_customer(uow, customer_id: str, email: str) -> Customer:
    """A customer added in `uow`, created when the first seeded customer was."""
    customer = Customer(
        id=customer_id,
        name="X",
        email=email,
        phone="1",
        tier="vip",
        created_at=uow.session.get(Customer, "C-00001").created_at,
    )
    uow.session.add(customer)
    return customer


def test_the_unit_of_work_rolls_back_uncommitted_work_by_default(app):
    before = count_rows(app.engine, Customer)
    with app.uow() as uow:
        uow.session.get(Customer, "C-00001").name = "Changed"
        new_customer(uow, "C-99999", "x@example.com")
    assert count_rows(app.engine, Customer) == before
    with app.uow() as uow:
        assert uow.session.get(Customer, "C-00001").name != "Changed"


def test_the_unit_of_work_rolls_back_when_the_use_case_fails(app):
    before = count_rows(app.engine, Customer)
    with pytest.raises(RuntimeError), app.uow() as uow:
        new_customer(uow, "C-99998", "y@example.com")
        uow.session.flush()
        raise RuntimeError("boom")
    assert count_rows(app.engine, Customer) == before


def test_committed_work_is_kept(app):
    with app.uow() as uow:
        uow.session.get(Customer, "C-00001").name = "Renamed"
        uow.commit()
    with app.uow() as uow:
        assert uow.session.get(Customer, "C-00001").name == "Renamed"


def test_a_ticket_and_its_newest_events_come_in_one_statement_as_the_two_reads_give_them(app, baseline):
    busiest = max(
        {e["ticket_id"] for e in baseline.tables["ticket_events"]},
        key=lambda t: sum(1 for e in baseline.tables["ticket_events"] if e["ticket_id"] == t),
    )
    with app.uow() as uow:
        events = uow.tickets.timeline(busiest, 100)[0]
        # Events at one instant are ordered by when they were added, in the single statement as in the two reads.
        uow.tickets.record(busiest, [replace(events[-1], note=f"same instant {n}") for n in range(3)])
        uow.commit()
    for limit in (2, 4, 100):
        with app.uow() as uow:
            expected = (uow.tickets.details(busiest), *uow.tickets.timeline(busiest, limit))
        with app.uow(one_statement=True) as uow:
            assert tuple(uow.tickets.view(busiest, limit)) == expected
    with app.uow(one_statement=True) as uow:
        assert uow.tickets.view("T-2026-9999", 10) is None


def test_a_one_statement_unit_refuses_a_second_statement_that_would_see_another_snapshot(app, stories):
    ticket_id = next(story["ticket_id"] for story in stories.values() if "ticket_id" in story)
    with app.uow(one_statement=True) as uow:
        assert uow.tickets.view(ticket_id, 10) is not None
        with pytest.raises(RuntimeError, match="second statement"):
            uow.tickets.view(ticket_id, 10)


def test_a_ticket_view_orders_its_events_as_the_timeline_does_ties_by_the_order_they_were_written(app, stories):
    ticket_id = stories["ticket_awaiting_return"]["ticket_id"]
    with app.uow(write=True) as uow:
        newest = uow.tickets.timeline(ticket_id, 1)[0][-1].occurred_at
        same = newest + timedelta(minutes=1)
        notes = ["first of two at one moment", "second of two at one moment"]
        uow.tickets.record(
            ticket_id, [TimelineEntry(same, EventType.REVIEW_STARTED.value, "system", note, None) for note in notes]
        )
        uow.commit()
    with app.uow() as uow:
        viewed = uow.tickets.view(ticket_id, 4)
        listed, total = uow.tickets.timeline(ticket_id, 4)
    assert viewed is not None and viewed.total == total
    assert viewed.events == listed and [e.note for e in listed[-2:]] == notes

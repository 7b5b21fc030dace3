"""Snapshots, diffs and hashes of worlds on both backends; deterministic ids; worlds from other sources."""

import json

from freezegun import freeze_time
from sqlalchemy import select, update
from sqlalchemy.engine import make_url

from aftersales import clock, ids
from aftersales.domain.enums import ReasonCode, RefundMethod
from aftersales.seeding import dataset, generator, loader
from aftersales.services.creation import Decisions, create_ticket
from aftersales.services.quotes import estimate_refund
from aftersales.storage import migrate
from aftersales.storage.database import make_engine
from aftersales.storage.models import Customer, Order, Product, Quote
from aftersales.worlds import inspect
from aftersales.worlds.service import Worlds
from aftersales.worlds.storage.rows import read_tables
from tests.support.worlds import AGENT, KEYS, PINNED, POLICY, open_worlds, ticket_request

CONFIRMED = Decisions(method=RefundMethod.ORIGINAL_PAYMENT, confirmation="person")


def episode(worlds: Worlds, world_id: str, order_id: str) -> str:
    """Estimate a return, then open the ticket on that quote; return the quote id."""
    with worlds.entered(world_id):
        quote = estimate_refund(
            worlds.unit_of_work(world_id, write=True),
            AGENT,
            order_id,
            1,
            1,
            ReasonCode.DEFECTIVE,
            clock.now(),
            POLICY.quote_ttl,
        )
        request = ticket_request(order_id, f"key-{order_id}", quote_id=quote.quote_id)
        create_ticket(worlds.unit_of_work(world_id, write=True), AGENT, request, CONFIRMED, clock.now(), POLICY)
    return quote.quote_id


def stored_quote_ids(worlds: Worlds, world_id: str) -> list[str]:
    with worlds.unit_of_work(world_id) as uow:
        return sorted(uow.session.scalars(select(Quote.id)))


def test_after_one_create_the_diff_lists_the_ticket_its_events_the_quote_and_the_key_and_nothing_else(worlds, stories):
    world = worlds.create(at=PINNED)
    episode(worlds, world.id, stories["headphones_in_window_qty3"]["order_id"])
    result = inspect.compare(worlds, world.id)
    assert set(result["summary"]) == {"tickets", "ticket_events", "quotes", "idempotency_records", "ticket_sequences"}
    added = result["tables"]["tickets"]["added"]
    assert len(added) == 1 and result["summary"]["tickets"] == {"added": 1, "removed": 0, "changed": 0}
    row = added[0]["row"]
    assert (row["order_id"], row["line_no"], row["quantity"], row["status"]) == (
        stories["headphones_in_window_qty3"]["order_id"],
        1,
        1,
        "approved",
    )
    assert row["created_at"] == "day+0T09:00:00Z"
    assert [e["row"]["type"] for e in result["tables"]["ticket_events"]["added"]] == ["created", "note", "approved"]
    record = result["tables"]["idempotency_records"]["added"][0]["row"]
    assert record["arguments"]["quote_id"] == "quote#1"
    assert result["tables"]["ticket_sequences"]["changed"][0]["fields"]["last_value"]["after"] == int(
        added[0]["key"]["id"][-4:]
    )


def test_one_episode_on_two_fresh_deterministic_worlds_stores_the_same_ids_and_hash(worlds, stories):
    order = stories["headphones_in_window_qty3"]["order_id"]
    first, second = worlds.create(at=PINNED, deterministic=True), worlds.create(at=PINNED, deterministic=True)
    assert episode(worlds, first.id, order) == episode(worlds, second.id, order) == ids.derived_id(0, 1)
    assert inspect.world_hash(worlds, first.id) == inspect.world_hash(worlds, second.id)
    # A restarted process (a new service on the same registry) continues the sequence instead of repeating it.
    again = Worlds(worlds.settings, worlds.registry.engine, KEYS)
    try:
        episode(again, first.id, stories["cheap_tshirts_in_window"]["order_id"])
    finally:
        again.close()
    assert stored_quote_ids(worlds, first.id) == sorted([ids.derived_id(0, 1), ids.derived_id(0, 2)])


def test_worlds_without_deterministic_ids_store_random_ones_yet_hash_the_same(worlds, stories):
    order = stories["headphones_in_window_qty3"]["order_id"]
    first, second = worlds.create(at=PINNED), worlds.create(at=PINNED)
    assert episode(worlds, first.id, order) != episode(worlds, second.id, order)
    assert inspect.world_hash(worlds, first.id) == inspect.world_hash(worlds, second.id)
    fork = worlds.fork(first.id, deterministic=True, seed=42)
    assert episode(worlds, fork.id, stories["cheap_tshirts_in_window"]["order_id"]) == ids.derived_id(42, 1)


def test_a_world_frozen_at_a_time_holds_the_same_rows_whatever_day_it_is_made(worlds):
    with freeze_time("2026-11-30 06:00"):
        first = worlds.create(at=PINNED)
        made_today = inspect.world_hash(worlds, first.id)
        worlds.drop(first.id)
        worlds.prune_templates()  # so the next world is built from scratch, on another day
    with freeze_time("2027-03-15 23:30"):
        second = worlds.create(at=PINNED)
        assert inspect.world_hash(worlds, second.id) == made_today


def test_a_world_is_compared_with_a_snapshot_file_and_with_another_world(worlds, stories, tmp_path):
    world, other = worlds.create(at=PINNED), worlds.create(at=PINNED)
    before = tmp_path / "before.json"
    before.write_text(json.dumps(inspect.snapshot(worlds, world.id)))
    episode(worlds, world.id, stories["headphones_in_window_qty3"]["order_id"])
    from_file = inspect.compare(worlds, world.id, against=str(before))
    from_world = inspect.compare(worlds, world.id, against=other.id)
    assert from_file["tables"] == from_world["tables"] and from_file["summary"]["tickets"]["added"] == 1
    assert inspect.compare(worlds, other.id, against=str(before))["identical"]


def test_a_world_made_from_a_dataset_file_holds_its_rows_anchored_to_the_worlds_day(worlds):
    data = generator.generate(60, 200, 30, seed=5)
    path = worlds.settings.worlds_datasets / "small.json"  # the folder the admin API makes worlds from
    path.parent.mkdir(parents=True)
    dataset.write(data, path)
    world = worlds.create(source="small.json", at=PINNED)
    first = data.tables["orders"][0]
    with worlds.unit_of_work(world.id) as uow:
        orders = dict(uow.session.execute(select(Order.id, Order.placed_at)).all())
    assert len(orders) == len(data.tables["orders"])  # the 200 generated, and the stories' own
    assert clock.as_utc(orders[first["id"]]) == first["placed_at"] + loader.shift_for(data, PINNED)
    assert (world.source_kind, world.source) == ("dataset", str(path))


def test_the_same_episode_hashes_the_same_on_sqlite_and_on_postgresql(
    worlds_home, postgres_worlds_home, postgres_admin_url, tmp_path, stories
):
    name = f"control_{tmp_path.name[-20:].lower().replace('-', '_')}"
    admin = make_engine(postgres_admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    postgres = make_url(postgres_admin_url).set(database=name).render_as_string(hide_password=False)
    hashes = []
    try:
        for url in (f"sqlite:///{tmp_path / 'control.db'}", postgres):
            engine = make_engine(url)
            migrate.upgrade(engine)
            engine.dispose()
            with open_worlds(worlds_home, url, tmp_path / "var") as service:
                world = service.create(at=PINNED, deterministic=True)
                episode(service, world.id, stories["headphones_in_window_qty3"]["order_id"])
                hashes.append(inspect.world_hash(service, world.id))
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()
    assert hashes[0] == hashes[1]


def test_a_change_made_behind_the_servers_back_to_a_table_episodes_never_touch_still_shows_in_the_diff(worlds, stories):
    # The first diff keeps the origin's tables and their prints; the second must still see the edited order and
    # the customer's new phone, though every other row of both tables is as the origin has it.
    world = worlds.create(at=PINNED)
    assert inspect.compare(worlds, world.id)["summary"] == {}
    order_id = stories["headphones_in_window_qty3"]["order_id"]
    with worlds.engines.engine(world.location).begin() as connection:
        connection.execute(
            update(Order).where(Order.id == order_id).values(shipping_fee_minor=Order.shipping_fee_minor + 1)
        )
        customer = connection.scalar(select(Order.customer_id).where(Order.id == order_id))
        connection.execute(update(Customer).where(Customer.id == customer).values(phone="+86 139 0000 0000"))
    result = inspect.compare(worlds, world.id)
    assert result["summary"] == {
        "orders": {"added": 0, "removed": 0, "changed": 1},
        "customers": {"added": 0, "removed": 0, "changed": 1},
    }
    assert result["tables"]["orders"]["changed"][0]["key"] == {"id": order_id}
    assert result["tables"]["customers"]["changed"][0]["fields"]["phone"]["after"] == "+86 139 0000 0000"
    assert result["after"]["hash"] == inspect.world_hash(worlds, world.id)  # read whole, without the origin's help


def test_a_diff_built_from_the_origins_rows_hashes_and_reads_as_a_snapshot_made_from_scratch(worlds, stories):
    world = worlds.create(at=PINNED)
    inspect.compare(worlds, world.id)  # the origin's rows, canonical rows and their texts are kept from here
    episode(worlds, world.id, stories["headphones_in_window_qty3"]["order_id"])
    result = inspect.compare(worlds, world.id)
    scratch = inspect.snapshot(worlds, world.id)
    assert result["after"]["hash"] == inspect.world_hash(worlds, world.id)
    added = {row["key"]["id"]: row["row"] for row in result["tables"]["tickets"]["added"]}
    assert [row for row in scratch["tables"]["tickets"] if row["id"] in added] == list(added.values())
    events = [row for row in scratch["tables"]["ticket_events"] if row["ticket_id"] in added]
    assert events == [row["row"] for row in result["tables"]["ticket_events"]["added"]]


def test_a_table_whose_print_is_unchanged_is_not_read_again_and_an_edited_one_is(worlds):
    world = worlds.create(at=PINNED)
    engine = worlds.engines.engine(world.location)
    first = read_tables(engine, ["orders", "products"])
    with engine.begin() as connection:
        connection.execute(
            update(Product).where(Product.sku == first["products"].rows[0]["sku"]).values(name="Renamed")
        )
    again = read_tables(engine, ["orders", "products"], first)
    assert again["orders"] is first["orders"]
    assert again["products"].print != first["products"].print
    assert "Renamed" in [row["name"] for row in again["products"].rows]

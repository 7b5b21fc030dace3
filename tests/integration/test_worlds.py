"""Worlds on a real database, both backends: create, fork, reset, drop, list, clocks, isolation, housekeeping."""

from datetime import UTC, datetime, timedelta

import pytest
from freezegun import freeze_time
from sqlalchemy import func, select

from aftersales import clock
from aftersales.domain.enums import ReasonCode, RefundMethod
from aftersales.domain.errors import HandleExpired
from aftersales.seeding import loader
from aftersales.services.creation import Decisions, create_ticket
from aftersales.services.quotes import estimate_refund, quote_for_use
from aftersales.storage.models import Order, Ticket
from aftersales.worlds.world_errors import UnknownWorld, WorldLimitReached, WorldRequestError
from tests.support.worlds import AGENT, PINNED, POLICY, next_number, ticket_request

CONFIRMED = Decisions(method=RefundMethod.ORIGINAL_PAYMENT, confirmation="person")


def tickets_in(worlds, world_id: str) -> dict[str, str]:
    with worlds.unit_of_work(world_id) as uow:
        return dict(uow.session.execute(select(Ticket.id, Ticket.description)).all())


def open_ticket(worlds, world_id: str, order_id: str, words: str, key: str = "key-00000001"):
    with worlds.entered(world_id):
        uow = worlds.unit_of_work(world_id, write=True)
        return create_ticket(uow, AGENT, ticket_request(order_id, key, words), CONFIRMED, clock.now(), POLICY)


def estimate(worlds, world_id: str, order_id: str):
    with worlds.entered(world_id):
        uow = worlds.unit_of_work(world_id, write=True)
        return estimate_refund(uow, AGENT, order_id, 1, 1, ReasonCode.DEFECTIVE, clock.now(), POLICY.quote_ttl)


def test_two_forks_of_the_baseline_number_the_same_next_ticket_and_see_only_their_own(worlds, stories, baseline):
    base = worlds.create(at=PINNED)
    first, second = worlds.fork(base.id), worlds.fork(base.id)
    order = stories["cheap_tshirts_in_window"]["order_id"]
    made_first = open_ticket(worlds, first.id, order, "Made in the first world.")
    made_second = open_ticket(worlds, second.id, order, "Made in the second world.")
    number = next_number(baseline)
    assert made_first.ticket.ticket_id == made_second.ticket.ticket_id == number
    first_tickets, second_tickets, base_tickets = (tickets_in(worlds, w.id) for w in (first, second, base))
    assert first_tickets[number] == "Made in the first world."
    assert second_tickets[number] == "Made in the second world."
    assert number not in base_tickets and len(base_tickets) == len(first_tickets) - 1 == len(second_tickets) - 1


def test_a_world_holds_the_baseline_with_its_dates_anchored_to_the_worlds_clock(worlds, baseline, stories):
    world = worlds.create(at=PINNED)
    order_id = stories["vip_laptop_recent"]["order_id"]
    shipped = next(row for row in baseline.tables["orders"] if row["id"] == order_id)["delivered_at"]
    with worlds.unit_of_work(world.id) as uow:
        delivered = uow.session.scalar(select(Order.delivered_at).where(Order.id == order_id))
    assert clock.as_utc(delivered) == shipped + loader.shift_for(baseline, PINNED)
    assert world.anchor_day == datetime(2026, 12, 1, tzinfo=UTC)


def test_inside_a_world_the_clock_is_the_worlds_and_outside_it_the_wall_clock(worlds):
    with freeze_time("2031-01-02 03:04:05"):
        frozen = worlds.create(clock_mode="frozen", at=PINNED)
        offset = worlds.create(clock_mode="offset", at=PINNED)
        with worlds.entered(frozen.id):
            assert clock.now() == PINNED
        with worlds.entered(offset.id):
            assert clock.now() == PINNED
        assert clock.now() == datetime(2031, 1, 2, 3, 4, 5, tzinfo=UTC)
    with freeze_time("2031-01-02 03:34:05"), worlds.entered(offset.id):
        assert clock.now() == PINNED + timedelta(minutes=30)  # an offset clock runs with the wall clock


def test_a_quote_in_a_frozen_world_holds_until_the_worlds_clock_passes_its_lifetime(worlds, stories):
    world = worlds.create(at=PINNED)
    quote = estimate(worlds, world.id, stories["headphones_in_window_qty3"]["order_id"])

    def use() -> None:
        with worlds.entered(world.id), worlds.unit_of_work(world.id) as uow:
            quote_for_use(uow, AGENT, quote.quote_id, clock.now(), POLICY.quote_ttl)

    with freeze_time("2035-06-01"):  # the wall clock is years later: only the world's clock matters
        worlds.advance(world.id, timedelta(minutes=29))
        use()
        worlds.advance(world.id, timedelta(minutes=1))
        with pytest.raises(HandleExpired, match="expired at 09:30 UTC on 2026-12-01"):
            use()


def test_setting_a_clock_and_advancing_a_real_one(worlds):
    frozen, real = worlds.create(at=PINNED), worlds.create()
    later = datetime(2027, 1, 15, 12, 0, tzinfo=UTC)
    assert worlds.set_clock(frozen.id, later).clock.now(clock.wall()) == later
    with freeze_time("2030-01-01"):
        moved = worlds.advance(real.id, timedelta(days=8))
        assert moved.clock.mode == "offset"
        assert moved.clock.now(clock.wall()) == datetime(2030, 1, 9, tzinfo=UTC)


def test_reset_brings_back_the_data_the_clock_and_the_id_counter_of_creation(worlds, stories, baseline):
    world = worlds.create(at=PINNED, deterministic=True)
    open_ticket(worlds, world.id, stories["cheap_tshirts_in_window"]["order_id"], "Gone after the reset.")
    estimate(worlds, world.id, stories["headphones_in_window_qty3"]["order_id"])
    worlds.advance(world.id, timedelta(days=3))
    reset = worlds.reset(world.id)
    assert next_number(baseline) not in tickets_in(worlds, world.id)
    assert (reset.clock.at, reset.id_counter) == (PINNED, 0)


def test_reset_of_a_fork_brings_back_its_source_as_it_was_when_forked(worlds, stories, baseline):
    source = worlds.create(at=PINNED)
    open_ticket(worlds, source.id, stories["cheap_tshirts_in_window"]["order_id"], "Before the fork.")
    fork = worlds.fork(source.id)
    open_ticket(worlds, source.id, stories["vip_laptop_recent"]["order_id"], "After the fork, in the source.", "k-2")
    open_ticket(worlds, fork.id, stories["headphones_in_window_qty3"]["order_id"], "In the fork.", "key-00000003")
    worlds.reset(fork.id)
    tickets = tickets_in(worlds, fork.id)
    first = next_number(baseline)
    assert tickets[first] == "Before the fork."
    assert f"{first[:-4]}{int(first[-4:]) + 1:04d}" not in tickets


def test_drop_removes_the_world_its_database_and_a_forks_copy_of_its_source(worlds):
    source = worlds.create(at=PINNED)
    fork = worlds.fork(source.id)
    worlds.unit_of_work(fork.id).__enter__().session.close()  # open its engine, as a served world would have
    worlds.drop(fork.id)
    assert not worlds.places.exists(fork.location) and not worlds.places.exists(fork.origin)
    assert worlds.places.exists(source.location) and worlds.places.exists(source.origin)  # the shared template
    with pytest.raises(UnknownWorld, match=f'no world "{fork.id}"'):
        worlds.get(fork.id)
    with pytest.raises(UnknownWorld):
        worlds.drop(fork.id)


def test_list_shows_each_world_with_its_source_clock_size_and_last_use(worlds):
    made = worlds.create(at=PINNED, world_id="listed-one")
    fork = worlds.fork(made.id, clock_mode="real")
    listed = {world.id: (world, size) for world, size in worlds.all()}
    assert set(listed) == {"listed-one", fork.id}
    world, size = listed["listed-one"]
    shown = world.as_dict(clock.wall(), size)
    assert shown["source"] == {"kind": "baseline", "name": "baseline"}
    assert shown["clock"] == {"mode": "frozen", "now": "2026-12-01T09:00:00Z"}
    assert size is not None and size > 100_000
    assert listed[fork.id][0].as_dict(clock.wall())["source"] == {"kind": "world", "name": "listed-one"}
    assert listed[fork.id][0].clock.mode == "real"


def test_worlds_unused_past_the_idle_time_are_dropped_and_the_bound_refuses_one_more(worlds):
    worlds.settings = worlds.settings.model_copy(update={"worlds_max": 2, "worlds_idle_ttl": timedelta(hours=1)})
    with freeze_time("2026-11-30 08:00"):
        old = worlds.create(at=PINNED)
    with freeze_time("2026-11-30 08:50"):
        kept = worlds.create(at=PINNED)
        with pytest.raises(WorldLimitReached, match="AFTERSALES_WORLDS_MAX"):
            worlds.create(at=PINNED)
    with freeze_time("2026-11-30 09:30"):
        newer = worlds.create(at=PINNED)  # the old one expired, which made room
        assert {world.id for world, _ in worlds.all()} == {kept.id, newer.id}
    assert not worlds.places.exists(old.location)


def test_an_id_that_is_taken_or_malformed_is_refused_with_what_to_do(worlds):
    worlds.create(at=PINNED, world_id="taken")
    with pytest.raises(WorldRequestError, match='"taken" already exists'):
        worlds.create(at=PINNED, world_id="taken")
    with pytest.raises(WorldRequestError, match="is not a world id"):
        worlds.create(at=PINNED, world_id="Not_Valid")
    assert [world.id for world, _ in worlds.all()] == ["taken"]


def test_seed_reset_of_the_default_world_leaves_the_registry_of_worlds_alone(worlds, engine):
    made = worlds.create(at=PINNED)
    loader.clear(engine)
    assert worlds.get(made.id).id == made.id


def test_a_world_counts_as_used_when_entered_and_its_engine_closes_when_idle(worlds, baseline):
    worlds.settings = worlds.settings.model_copy(update={"worlds_engine_idle": timedelta(seconds=30)})
    with freeze_time("2026-11-30 08:00"):
        world = worlds.create(at=PINNED)
    with freeze_time("2026-11-30 10:00"), worlds.entered(world.id), worlds.unit_of_work(world.id) as uow:
        assert uow.session.scalar(select(func.count()).select_from(Ticket)) == len(baseline.tables["tickets"])
    assert worlds.get(world.id).last_used_at == datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
    assert worlds.engines.open_places() == [world.location]


def test_the_worlds_migrations_go_down_to_before_worlds_and_up_again(empty_engine):
    from alembic import command
    from sqlalchemy import inspect

    from aftersales.storage import migrate

    migrate.upgrade(empty_engine)
    config = migrate.alembic_config()
    with empty_engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0006")  # through 0009 (incarnations), 0008 (the trace), then 0007 (the registry)
    assert {"worlds", "trace"}.isdisjoint(inspect(empty_engine).get_table_names())
    migrate.upgrade(empty_engine)
    assert {"worlds", "trace"} <= set(inspect(empty_engine).get_table_names())


def test_an_id_asked_for_in_a_world_dropped_meanwhile_is_refused_as_an_unknown_world(worlds):
    from aftersales import ids

    world = worlds.create(at=PINNED, seed=7)
    assert world.deterministic
    with worlds.entered(world.id):
        assert ids.new_id() == ids.derived_id(7, 1)
        worlds.drop(world.id)
        with pytest.raises(UnknownWorld, match=f'no world "{world.id}"'):
            ids.new_id()


def test_a_world_with_a_lease_is_gone_once_it_ends_and_dropped_at_the_next_listing(worlds):
    with freeze_time("2026-11-30 08:00"):
        base = worlds.create(at=PINNED, lease=timedelta(minutes=30))
        fork = worlds.fork(base.id, lease=timedelta(minutes=10))
        plain = worlds.fork(base.id)  # no lease of its own, whatever its source's
        shown = {world.id: world.as_dict(clock.wall())["expires_at"] for world, _ in worlds.all()}
        assert shown == {base.id: "2026-11-30T08:30:00Z", fork.id: "2026-11-30T08:10:00Z", plain.id: None}
    with freeze_time("2026-11-30 08:10"):
        with pytest.raises(UnknownWorld):
            worlds.get(fork.id)  # gone at the end of its lease, before any housekeeping ran
        assert worlds.places.exists(fork.location)
        assert {world.id for world, _ in worlds.all()} == {base.id, plain.id}
        assert not worlds.places.exists(fork.location)  # the listing dropped it
    with freeze_time("2026-11-30 08:31"):
        assert worlds.expire() == [base.id]
        assert [world.id for world, _ in worlds.all()] == [plain.id]


def test_a_create_at_the_world_limit_succeeds_once_the_leased_forks_of_a_crashed_harness_ended(worlds):
    worlds.settings = worlds.settings.model_copy(update={"worlds_max": 3})
    with freeze_time("2026-11-30 08:00"):
        base = worlds.create(at=PINNED)
        left = [worlds.fork(base.id, lease=timedelta(minutes=30)) for _ in range(2)]  # never dropped by their harness
        with pytest.raises(WorldLimitReached, match="past their lease"):
            worlds.fork(base.id, lease=timedelta(minutes=30))
    with freeze_time("2026-11-30 08:30"):
        made = worlds.fork(base.id, lease=timedelta(minutes=30))
        assert {world.id for world, _ in worlds.all()} == {base.id, made.id}
    assert not any(worlds.places.exists(world.location) for world in left)


def test_a_lease_outside_one_second_to_ten_years_is_refused_naming_the_range(worlds):
    for lease in (timedelta(0), timedelta(days=3651)):
        with pytest.raises(WorldRequestError, match="--lease .* is not a duration this accepts"):
            worlds.create(at=PINNED, lease=lease)
    assert worlds.all() == []

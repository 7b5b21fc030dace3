"""Where worlds come from: generated databases and files, sources that cannot be used, and busy sources."""

import pytest
from sqlalchemy import func, select

from aftersales import clock
from aftersales.seeding import bulk
from aftersales.storage import migrate
from aftersales.storage.database import make_engine
from aftersales.storage.models import Customer, Order
from aftersales.worlds.errors import WorldBusy, WorldRequestError
from aftersales.worlds.model import Place
from aftersales.worlds.storage import postgres
from aftersales.worlds.templates import GENERATED_DAY
from tests.support.worlds import PINNED


def orders_in(engine) -> dict[str, object]:
    with engine.connect() as connection:
        return {
            order_id: clock.as_utc(placed) for order_id, placed in connection.execute(select(Order.id, Order.placed_at))
        }


def test_a_world_made_from_a_generated_database_is_its_copy_moved_to_the_worlds_day(worlds, empty_url):
    generated = make_engine(empty_url)
    migrate.upgrade(generated)
    bulk.generate_into(generated, 40, 120, 10, seed=3, progress=False)
    source_orders = orders_in(generated)
    generated.dispose()  # PostgreSQL copies a database only while nobody is connected to it
    source = empty_url.removeprefix("sqlite:///") if empty_url.startswith("sqlite") else empty_url
    world = worlds.create(source=source, at=PINNED)
    moved = PINNED.date() - GENERATED_DAY
    with worlds.places.reading(world.location) as engine:
        world_orders = orders_in(engine)
    assert world_orders == {order_id: placed + moved for order_id, placed in source_orders.items()}
    assert world.source_kind == "database" and "password" not in world.source


def test_sources_that_cannot_be_copied_are_refused_with_what_to_do(worlds, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a dataset")
    with pytest.raises(WorldRequestError, match="names no file"):
        worlds.create(source=str(tmp_path / "missing.json"), at=PINNED)
    with pytest.raises(WorldRequestError, match="neither a dataset file nor a SQLite database"):
        worlds.create(source=str(notes), at=PINNED)
    other = "sqlite:///elsewhere.db" if worlds.places.backend == "postgresql" else "postgresql+psycopg://u@h/db"
    with pytest.raises(WorldRequestError, match="not a (SQLite database|database on this PostgreSQL server)"):
        worlds.create(source=other, at=PINNED)
    assert worlds.all() == []


def test_a_world_in_use_elsewhere_is_forked_and_its_idle_connections_keep_working(worlds, monkeypatch, baseline):
    source = worlds.create(at=PINNED)
    elsewhere = make_engine(worlds.places.url(source.location))  # another replica's pool on the same world
    try:
        with elsewhere.connect() as connection:
            assert connection.scalar(select(func.count()).select_from(Customer)) == len(baseline.tables["customers"])
        fork = worlds.fork(source.id)
        with elsewhere.connect() as connection:  # PostgreSQL ended the idle one; the pool reconnects
            assert connection.scalar(select(func.count()).select_from(Customer)) == len(baseline.tables["customers"])
        monkeypatch.setattr(postgres, "WAIT_FOR_SOURCE", 0.3)
        with elsewhere.connect() as connection, connection.begin():
            connection.execute(select(func.count()).select_from(Customer))  # a call still running there
            if worlds.places.backend == "postgresql":
                with pytest.raises(WorldBusy, match="Retry when the calls running in that world have finished"):
                    worlds.fork(source.id)
            else:
                worlds.fork(source.id)  # the backup API reads beside other connections
    finally:
        elsewhere.dispose()
    assert worlds.get(fork.id).source == source.id
    assert len(worlds.all()) == (2 if worlds.places.backend == "postgresql" else 3)


def test_a_failed_copy_leaves_no_world_and_no_database_behind(worlds, monkeypatch):
    source = worlds.create(at=PINNED)

    def broken(*_: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(worlds.places, "seal", broken)
    with pytest.raises(OSError, match="disk full"):
        worlds.fork(source.id, world_id="doomed")
    assert [world.id for world, _ in worlds.all()] == [source.id]
    assert not worlds.places.exists(Place("world", "doomed")) and not worlds.places.exists(Place("origin", "doomed"))

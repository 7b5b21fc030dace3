"""Where worlds come from: generated databases and files, sources that cannot be used, and busy sources."""

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from aftersales import clock
from aftersales.domain.enums import ReasonCode
from aftersales.seeding import bulk, dataset, generator, loader
from aftersales.services.quotes import estimate_refund, quote_for_use
from aftersales.storage import migrate
from aftersales.storage.database import make_engine, make_session_factory
from aftersales.storage.models import Customer, Order, Quote
from aftersales.storage.unit_of_work import SqlUnitOfWork
from aftersales.worlds.model import Place
from aftersales.worlds.storage import postgres
from aftersales.worlds.templates import GENERATED_DAY
from aftersales.worlds.world_errors import WorldBusy, WorldRequestError
from tests.support.worlds import AGENT, PINNED, POLICY

ADMIN_RULE = 'comes from "baseline", a dataset file in'


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
    world = worlds.create(source=source, at=PINNED, operator=True)
    moved = PINNED.date() - GENERATED_DAY
    with worlds.places.reading(world.location) as engine:
        world_orders = orders_in(engine)
    assert world_orders == {order_id: placed + moved for order_id, placed in source_orders.items()}
    assert world.source_kind == "database" and "password" not in world.source


def test_a_copy_made_without_a_dataset_day_moves_each_quotes_expiry_with_its_creation_and_serves_it(
    worlds, empty_url, baseline, stories
):
    made_on = datetime.combine(GENERATED_DAY, PINNED.time(), UTC)  # the day `seed generate` writes relative to
    generated = make_engine(empty_url)
    migrate.upgrade(generated)
    loader.load(generated, baseline, made_on)
    order = stories["headphones_in_window_qty3"]["order_id"]
    uow = SqlUnitOfWork(make_session_factory(generated), write=True)
    quote = estimate_refund(uow, AGENT, order, 1, 1, ReasonCode.DEFECTIVE, made_on, POLICY.quote_ttl)
    generated.dispose()
    source = empty_url.removeprefix("sqlite:///") if empty_url.startswith("sqlite") else empty_url
    world = worlds.create(source=source, at=PINNED, operator=True)  # one day later, and no dataset_day
    with worlds.unit_of_work(world.id) as uow:
        held = uow.session.execute(select(Quote.created_at, Quote.expires_at)).one()
    assert tuple(map(clock.as_utc, held)) == (PINNED, PINNED + POLICY.quote_ttl)
    worlds.advance(world.id, timedelta(minutes=29))
    with worlds.entered(world.id), worlds.unit_of_work(world.id) as uow:
        used = quote_for_use(uow, AGENT, quote.quote_id, clock.now(), POLICY.quote_ttl)
    assert used.id == quote.quote_id


def test_sources_that_cannot_be_copied_are_refused_with_what_to_do(worlds, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a dataset")
    with pytest.raises(WorldRequestError, match="names no file"):
        worlds.create(source=str(tmp_path / "missing.json"), at=PINNED, operator=True)
    with pytest.raises(WorldRequestError, match="neither a dataset file nor a SQLite database"):
        worlds.create(source=str(notes), at=PINNED, operator=True)
    other = "sqlite:///elsewhere.db" if worlds.places.backend == "postgresql" else "postgresql+psycopg://u@h/db"
    with pytest.raises(WorldRequestError, match="not a (SQLite database|database on this PostgreSQL server)"):
        worlds.create(source=other, at=PINNED, operator=True)
    assert worlds.all() == []


def test_the_serving_database_is_never_copied_by_path_or_url_even_by_the_operator(worlds):
    serving = worlds.registry.engine.url.render_as_string(hide_password=False)
    named = [serving, serving.removeprefix("sqlite:///")] if serving.startswith("sqlite") else [serving]
    for source in named:
        for operator in (True, False):
            with pytest.raises(WorldRequestError, match="is the database this server serves") as refused:
                worlds.create(source=source, at=PINNED, operator=operator)
            message = str(refused.value)
            assert ("never from the database this server serves" if operator else ADMIN_RULE) in message
            assert "password" not in message
    assert worlds.all() == []


def test_without_the_operator_a_world_comes_only_from_the_baseline_or_a_dataset_in_the_datasets_folder(
    worlds, empty_url, tmp_path
):
    folder = worlds.settings.worlds_datasets
    folder.mkdir(parents=True)
    dataset.write(generator.generate(20, 60, 5, seed=2), tmp_path / "outside.json")
    dataset.write(generator.generate(20, 60, 5, seed=2), folder / "small.json")
    generated = make_engine(empty_url)
    migrate.upgrade(generated)
    generated.dispose()
    generated_file = make_engine(f"sqlite:///{folder / 'generated.db'}")
    migrate.upgrade(generated_file)
    generated_file.dispose()
    (folder / "escape.json").symlink_to(tmp_path / "outside.json")
    refused = {
        empty_url: "is a database, not a dataset file",
        "postgresql+psycopg://u:secret@elsewhere/shop": "is a database, not a dataset file",
        "generated.db": "is a database, not a dataset file",
        str(tmp_path / "outside.json"): f"is not in {folder}",
        "../outside.json": f"is not in {folder}",
        "escape.json": f"is not in {folder}",
        "/etc/passwd": f"is not in {folder}",
        "missing.json": "names no file in that folder",
    }
    for source, words in refused.items():
        with pytest.raises(WorldRequestError) as refusal:
            worlds.create(source=source, at=PINNED)
        message = str(refusal.value)
        assert message.startswith('"from"') and words in message and ADMIN_RULE in message, (source, message)
        assert "secret" not in message
    assert worlds.all() == []
    assert worlds.create(source="small.json", at=PINNED).source_kind == "dataset"
    assert worlds.create(source=str(folder / "small.json"), at=PINNED).source_kind == "dataset"
    assert worlds.create(at=PINNED).source_kind == "baseline"


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

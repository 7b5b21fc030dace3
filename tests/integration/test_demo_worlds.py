"""The demo's worlds (aftersales/demo/worlds.py) on its own SQLite control database: a fresh fork of the demo world
per column and run, forks dropped once the run is over, reset, and a long demo that never hits the worlds limits."""

from collections.abc import Iterator
from datetime import timedelta

import pytest
from freezegun import freeze_time
from sqlalchemy import select, update

from aftersales import clock
from aftersales.app import App
from aftersales.demo.web import demo_settings
from aftersales.demo.worlds import CALLER, DEMO, DemoWorlds
from aftersales.security.tokens import verify
from aftersales.settings import Settings
from aftersales.storage.models import Ticket
from tests.support.apps import SEED_DIR

AWAITING_RETURN = "T-2026-0325"  # the baseline's ticket_awaiting_return, which the cancel case withdraws


@pytest.fixture
def demo(tmp_path) -> Iterator[tuple[DemoWorlds, App, App]]:
    # The user's own limits (1 world, dropped after a minute unused) are not the demo's: its registry is its own.
    mine = Settings(data_dir=tmp_path, seed_dir=SEED_DIR, worlds_max=1, worlds_idle_ttl=timedelta(minutes=1))
    settings = demo_settings(mine, tmp_path, "127.0.0.1", 9)
    app, short = App(settings), App(settings.model_copy(update={"state_ttl": timedelta(seconds=5)}))
    worlds = DemoWorlds(app, others=(short,))
    worlds.rebuild()
    yield worlds, app, short
    app.close()
    short.close()


def live(app: App) -> list[str]:
    return sorted(world.id for world, _ in app.worlds.all())


def status(app: App, world_id: str, ticket_id: str) -> str | None:
    with app.worlds.unit_of_work(world_id) as uow:
        return uow.session.scalar(select(Ticket.status).where(Ticket.id == ticket_id))


def test_each_column_gets_its_own_fork_of_the_demo_world_and_a_token_bound_to_it(demo):
    worlds, app, short = demo
    modern, legacy = worlds.fresh("http://127.0.0.1:9/mcp", app), worlds.fresh("http://127.0.0.1:9/x/mcp", short)
    assert modern.world != legacy.world and live(app) == sorted([DEMO, modern.world, legacy.world])
    claims = verify(app.caller_keys, modern.token, clock.now())
    assert (claims.world, claims.caller.id) == (modern.world, CALLER)
    assert (modern.state_ttl, legacy.state_ttl) == (timedelta(minutes=10), timedelta(seconds=5))
    assert app.worlds.get(modern.world).source == DEMO


def test_what_one_run_changes_is_gone_for_the_next_run_and_its_forks_are_dropped(demo):
    worlds, app, short = demo
    first = worlds.fresh("url", app)
    with app.worlds.unit_of_work(first.world, write=True) as uow:
        uow.session.execute(update(Ticket).where(Ticket.id == AWAITING_RETURN).values(status="cancelled"))
        uow.commit()
    with short.worlds.unit_of_work(first.world) as uow:  # the short-rounds server has served this fork too
        uow.session.scalar(select(Ticket.status).limit(1))
    location = app.worlds.get(first.world).location
    worlds.release()
    second = worlds.fresh("url", app)
    assert status(app, second.world, AWAITING_RETURN) == "awaiting_return"
    assert live(app) == sorted([DEMO, second.world])
    assert location not in short.worlds.engines.open_places()  # no connection left to a dropped fork's file


def test_a_long_demo_holds_the_demo_world_and_one_runs_forks_whatever_the_users_limit(demo):
    worlds, app, _ = demo
    for _ in range(12):
        worlds.release()
        made = [worlds.fresh("url", app).world for _ in range(2)]
        assert live(app) == sorted([DEMO, *made])
    assert app.settings.worlds_max >= 3


def test_housekeeping_keeps_the_forks_of_a_run_whose_form_stays_open_for_minutes(demo):
    worlds, app, _ = demo
    forks = [worlds.fresh("url", app).world for _ in range(2)]
    with freeze_time(clock.wall() + timedelta(minutes=20)):
        assert app.worlds.expire() == []
    assert live(app) == sorted([DEMO, *forks])


def test_a_demo_left_alone_past_the_idle_time_makes_its_demo_world_again(demo):
    worlds, app, _ = demo
    worlds.fresh("url", app)
    before = live(app)
    with freeze_time(clock.wall() + app.settings.worlds_idle_ttl + timedelta(hours=1)):
        assert sorted(app.worlds.expire()) == before  # housekeeping drops every world, the demo's too
    worlds.release()  # the run's forks are gone already: nothing to drop, nothing raised
    again = worlds.fresh("url", app)
    assert live(app) == sorted([DEMO, again.world])
    assert status(app, again.world, AWAITING_RETURN) == "awaiting_return"


def test_reset_drops_every_world_and_makes_the_demo_world_from_the_baseline_again(demo):
    worlds, app, _ = demo
    kept = worlds.fresh("url", app)
    with app.worlds.unit_of_work(DEMO, write=True) as uow:
        uow.session.execute(update(Ticket).where(Ticket.id == AWAITING_RETURN).values(status="cancelled"))
        uow.commit()
    worlds.rebuild()
    assert live(app) == [DEMO] and kept.world not in live(app)
    assert status(app, DEMO, AWAITING_RETURN) == "awaiting_return"

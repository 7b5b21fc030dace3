"""Time in worlds: a world's clock drives quotes and windows, and episodes repeat exactly on any day, on both databases.

Every test runs with freezegun set to a date unrelated to the worlds' clocks (and earlier than today, so tokens
issued before the freeze stay valid).
"""

import shutil
from datetime import timedelta

import pytest
from freezegun import freeze_time
from sqlalchemy.engine import make_url

from aftersales.seeding import loader
from tests.support.clients import connect_http
from tests.support.creation import create_arguments
from tests.support.episodes import CREATE, ESTIMATE, episode, serving_worlds
from tests.support.postgres import scratch_database
from tests.support.worlds import PINNED

pytestmark = [pytest.mark.anyio, pytest.mark.http]
DAYS = ("2025-02-14 06:30:00", "2025-09-03 22:10:00")  # two wall-clock days, both unlike the worlds' 2026-12-01


def wall_clock_on(day: str):
    """The wall clock frozen on `day` for the test and the server's threads.

    Event loops (the server's runs in a thread of its own) and the audit writer's batching keep real monotonic
    time: a timer set while frozen would, after the freeze, lie decades ahead and hold the server's shutdown.
    """
    return freeze_time(day, real_asyncio=True, ignore=["asyncio", "aftersales.storage.audit"])


async def call(world, tool: str, arguments: dict):
    async with connect_http(world.url.removesuffix("/mcp"), world.token) as client:
        return await client.call_tool(tool, arguments)


def estimate_of(order_id: str) -> dict:
    return {"order_id": order_id, "line_no": 1, "reason_code": "defective"}


async def test_a_quote_holds_for_thirty_minutes_of_the_worlds_clock_and_a_window_closes_with_it(
    served_worlds, stories, baseline
):
    with wall_clock_on(DAYS[0]):
        world = served_worlds.admin.create(clock="frozen", at=PINNED)
        held = await call(world, ESTIMATE, estimate_of(stories["cheap_tshirts_in_window"]["order_id"]))
        assert held.structured_content["expires_at"] == "2026-12-01T09:30:00Z"
        world.advance("29m")
        kept = create_arguments(
            stories["cheap_tshirts_in_window"]["order_id"],
            quote_id=held.structured_content["quote_id"],
            refund_method="original_payment",
        )
        assert (await call(world, CREATE, kept)).structured_content["outcome"] == "created"
        late = await call(world, ESTIMATE, estimate_of(stories["headphones_in_window_qty3"]["order_id"]))
        world.advance("30m")
        expired = await call(
            world,
            CREATE,
            create_arguments(
                stories["headphones_in_window_qty3"]["order_id"],
                quote_id=late.structured_content["quote_id"],
                refund_method="original_payment",
            ),
        )
        assert expired.is_error and expired.meta["aftersales/error"] == "expired"
        assert "expired at 09:59 UTC on 2026-12-01" in expired.content[0].text

        laptop = stories["vip_laptop_recent"]["order_id"]
        delivered = next(row for row in baseline.tables["orders"] if row["id"] == laptop)["delivered_at"]
        closes = delivered + loader.shift_for(baseline, PINNED) + timedelta(days=15)  # laptops: 15 days
        world.set_clock(closes - timedelta(seconds=1))
        assert not (await call(world, ESTIMATE, estimate_of(laptop))).is_error
        world.set_clock(closes)
        closed = await call(world, ESTIMATE, estimate_of(laptop))
    assert closed.is_error and closed.structured_content["error_code"] == "return_window_closed"


async def test_the_same_episode_on_fresh_deterministic_worlds_hashes_the_same_on_both_databases_and_any_day(
    sqlite_template, postgres_template, postgres_admin_url, worlds_home, postgres_worlds_home, stories, tmp_path
):
    order = stories["cheap_tshirts_in_window"]["order_id"]
    copy = tmp_path / "control.db"
    shutil.copyfile(sqlite_template, copy)
    hashes, pristine = {}, set()
    with (
        scratch_database(postgres_admin_url, make_url(postgres_template).database) as postgres_url,
        serving_worlds(worlds_home, f"sqlite:///{copy}", tmp_path / "sqlite") as sqlite,
        serving_worlds(postgres_worlds_home, postgres_url, tmp_path / "postgresql") as postgresql,
    ):
        # Each run on a fresh world; the revision alternates too, since the data must not depend on it either.
        for served, day, mode in (
            (sqlite, 0, "auto"),
            (sqlite, 1, "legacy"),
            (postgresql, 0, "legacy"),
            (postgresql, 1, "auto"),
        ):
            with wall_clock_on(DAYS[day]):
                world = served.admin.create(clock="frozen", at=PINNED, deterministic=True, seed=7)
                pristine.add(world.hash())
                played = await episode(world, mode, order)
                assert played.replay_outcome == "replayed" and played.person.questions == ["refund_method"]
                hashes[(served.app.engine.dialect.name, day, mode)] = world.hash()
    assert len(set(hashes.values())) == 1, hashes
    assert len(pristine) == 1 and pristine.isdisjoint(hashes.values())

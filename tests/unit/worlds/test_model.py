"""A world's clock: real, frozen or offset; advanced, set, and put back by a reset."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from aftersales.worlds.model import Place, World, WorldClock, midnight, parse_instant
from aftersales.worlds.world_errors import WorldRequestError

WALL = datetime(2026, 11, 30, 6, 0, 0, 123456, tzinfo=UTC)
T = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def test_a_real_clock_shows_the_wall_clock():
    assert WorldClock.start("real", None, WALL).now(WALL + timedelta(hours=1)) == WALL + timedelta(hours=1)


def test_a_frozen_clock_shows_its_time_whatever_the_wall_clock_says():
    frozen = WorldClock.start("frozen", T, WALL)
    assert frozen.now(WALL) == frozen.now(WALL + timedelta(days=400)) == T


def test_a_frozen_clock_without_a_time_freezes_the_current_second():
    assert WorldClock.start("frozen", None, WALL).at == WALL.replace(microsecond=0)


def test_an_offset_clock_starts_at_its_time_and_then_runs_with_the_wall_clock():
    offset = WorldClock.start("offset", T, WALL)
    assert offset.now(WALL) == T
    assert offset.now(WALL + timedelta(minutes=31)) == T + timedelta(minutes=31)


def test_advancing_and_setting_keep_a_frozen_clock_frozen_and_make_a_real_one_an_offset_one():
    frozen = WorldClock.start("frozen", T, WALL)
    assert frozen.advanced(timedelta(days=8)) == WorldClock("frozen", at=T + timedelta(days=8))
    assert frozen.set_to(T - timedelta(days=1), WALL) == WorldClock("frozen", at=T - timedelta(days=1))
    real = WorldClock.start("real", None, WALL)
    assert real.advanced(timedelta(minutes=31)).now(WALL) == WALL + timedelta(minutes=31)
    moved = real.set_to(T, WALL)
    assert (moved.mode, moved.now(WALL + timedelta(seconds=5))) == ("offset", T + timedelta(seconds=5))


@pytest.mark.parametrize(
    ("mode", "at", "message"),
    [("real", T, "--at .* with --clock real"), ("offset", None, "without --at"), ("sundial", None, "not a clock")],
)
def test_clock_options_that_do_not_fit_are_refused_with_what_to_do(mode, at, message):
    with pytest.raises(WorldRequestError, match=message):
        WorldClock.start(mode, at, WALL)


def test_reset_puts_each_kind_of_clock_back_at_its_start():
    later = WALL + timedelta(days=3)
    world = World(
        id="w-1",
        state="ready",
        created_at=WALL,
        last_used_at=WALL,
        source_kind="baseline",
        source="baseline",
        location=Place("world", "w-1"),
        origin=Place("template", "abc"),
        origin_owned=False,
        anchor_day=midnight(T),
        clock=WorldClock("frozen", at=T + timedelta(days=9)),
        start_mode="frozen",
        start_at=T,
    )
    assert world.reset_clock(later) == WorldClock("frozen", at=T)
    assert replace(world, start_mode="offset").reset_clock(later).now(later) == T
    assert replace(world, start_mode="real").reset_clock(later) == WorldClock("real")


def test_times_are_read_as_iso_8601_and_taken_as_utc_without_an_offset():
    assert parse_instant("2026-12-01T09:00:00Z") == T
    assert parse_instant("2026-12-01T17:00:00+08:00") == T
    assert parse_instant("2026-12-01T09:00") == T
    with pytest.raises(WorldRequestError, match="not an ISO 8601 time"):
        parse_instant("next tuesday")


def test_places_are_written_and_read_back_from_the_registry():
    assert Place.parse(str(Place("origin", "w-1a2b"))) == Place("origin", "w-1a2b")
    with pytest.raises(ValueError, match="not a place"):
        Place.parse("cellar:w-1")

"""Occasional purges: at most once a minute on each clock, so one world's calls never time another's purges."""

from datetime import timedelta

from aftersales import clock
from aftersales.services.housekeeping import Occasionally
from tests.support.worlds import PINNED


def test_a_purge_is_due_once_a_minute_on_the_wall_clock():
    purge = Occasionally()
    assert [purge.due(PINNED + timedelta(seconds=s)) for s in (0, 30, 59, 60, 61)] == [True, False, False, True, False]


def test_each_clock_scope_keeps_its_own_last_purge():
    purge = Occasionally()
    with clock.using(lambda: PINNED, scope="w-one"):
        assert purge.due(PINNED)
    with clock.using(lambda: PINNED, scope="w-two"):
        assert purge.due(PINNED)  # the first world's purge does not stand for the second's
    assert purge.due(PINNED)  # nor for the default world's
    with clock.using(lambda: PINNED, scope="w-one"):
        assert not purge.due(PINNED + timedelta(seconds=10))


def test_a_clock_set_back_purges_again_at_once():
    purge = Occasionally()
    with clock.using(lambda: PINNED, scope="w-reset"):
        assert purge.due(PINNED + timedelta(minutes=30))
        assert purge.due(PINNED)  # the world was reset: its last purge lies in its future

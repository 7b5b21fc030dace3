"""The one clock: the wall clock (which freezegun freezes) unless a context supplies its own."""

import threading
from contextvars import copy_context
from datetime import UTC, datetime

from freezegun import freeze_time

from aftersales import clock

PINNED = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def test_now_is_the_wall_clock_that_freezegun_freezes_when_no_source_is_set():
    with freeze_time("2030-05-06 07:08:09"):
        assert clock.now() == datetime(2030, 5, 6, 7, 8, 9, tzinfo=UTC)
        assert clock.wall() == clock.now()


def test_a_clock_source_answers_now_inside_its_block_only():
    with freeze_time("2030-05-06"):
        with clock.using(lambda: PINNED):
            assert clock.now() == PINNED
            assert clock.wall() == datetime(2030, 5, 6, tzinfo=UTC)
        assert clock.now() == datetime(2030, 5, 6, tzinfo=UTC)


def test_a_clock_source_follows_the_context_into_a_worker_thread():
    seen: list[datetime] = []
    with clock.using(lambda: PINNED):
        context = copy_context()  # what anyio's to_thread.run_sync hands the thread that runs a tool
    worker = threading.Thread(target=lambda: context.run(lambda: seen.append(clock.now())))
    worker.start()
    worker.join(timeout=5)
    assert not worker.is_alive()
    assert seen == [PINNED]


def test_nested_clock_sources_restore_the_outer_one():
    later = datetime(2027, 1, 1, tzinfo=UTC)
    with clock.using(lambda: PINNED):
        with clock.using(lambda: later):
            assert clock.now() == later
        assert clock.now() == PINNED

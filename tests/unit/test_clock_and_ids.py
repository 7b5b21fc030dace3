"""The one clock and the one id source: wall clock and UUIDv4 unless a context supplies its own."""

import threading
import uuid
from contextvars import copy_context
from datetime import UTC, datetime

from freezegun import freeze_time

from aftersales import clock, ids

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


def test_ids_are_random_version_4_uuids_by_default():
    first, second = ids.new_id(), ids.new_id()
    assert first != second
    assert uuid.UUID(first).version == 4


def test_a_derived_id_depends_only_on_the_seed_and_the_counter_and_looks_like_a_uuid4():
    assert ids.derived_id(7, 1) == ids.derived_id(7, 1)
    assert len({ids.derived_id(7, 1), ids.derived_id(7, 2), ids.derived_id(8, 1)}) == 3
    assert uuid.UUID(ids.derived_id(7, 1)).version == 4


def test_an_id_source_supplies_new_id_inside_its_block_only():
    counter = iter(range(1, 100))
    with ids.using(lambda: ids.derived_id(3, next(counter))):
        assert [ids.new_id(), ids.new_id()] == [ids.derived_id(3, 1), ids.derived_id(3, 2)]
    assert ids.new_id() not in {ids.derived_id(3, n) for n in range(1, 10)}

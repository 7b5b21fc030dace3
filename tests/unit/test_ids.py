"""The one id source: UUIDv4 unless a context supplies its own."""

import uuid

from aftersales import ids


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

"""The head revision the code states is the newest of the shipped migration scripts."""

from aftersales.storage import migrate


def test_the_stated_head_is_the_newest_shipped_migration_so_a_new_one_cannot_be_skipped():
    assert migrate.head_revision() == migrate.HEAD

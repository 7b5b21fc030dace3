"""Worlds made at the same moment in one process: each gets its own database, and a missing template is built once."""

import os
import threading
from pathlib import Path

from tests.support.worlds import PINNED, WorldsHome, drop_databases, open_worlds

MAKERS = 6


def test_worlds_made_at_once_before_their_template_exists_are_all_made_from_one_build(
    backend, database_url, request, tmp_path: Path
):
    # A home of its own, so the template is missing and every maker arrives while it is being built.
    home = WorldsHome(folder=tmp_path / "worlds", prefix=f"wc{os.getpid()}_{backend[:2]}")
    made, failed = [], []
    try:
        with open_worlds(home, database_url, tmp_path / "var") as worlds:
            start = threading.Barrier(MAKERS)

            def make() -> None:
                start.wait()
                try:
                    made.append(worlds.create(at=PINNED).id)
                except Exception as problem:
                    failed.append(repr(problem))

            threads = [threading.Thread(target=make) for _ in range(MAKERS)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(120)
            assert failed == [] and len(set(made)) == MAKERS
            assert len(worlds.places.templates()) == 1
            assert {world.origin for world in worlds.registry.all()} == set(worlds.places.templates())
    finally:
        if backend == "postgresql":
            drop_databases(request.getfixturevalue("postgres_admin_url"), home.prefix)

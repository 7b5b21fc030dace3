"""`aftersales tasks check` of the whole shipped set on PostgreSQL (test_tasks_check.py has it on SQLite).

A file of its own, so `make test` (one file per worker) runs it beside the SQLite run, not after it. Every task runs
in brief mode here, and every fourth in a conversation too: a conversation makes the same calls as the brief (the
database sees no difference), and its customer's turns reach PostgreSQL's trace through those few; the SQLite run
checks every task in both modes.
"""

from pathlib import Path

import pytest

from tests.support.harness import checking_host, every_shipped_reference_passes


@pytest.fixture
def host(backend: str, request: pytest.FixtureRequest, tmp_path: Path):
    with checking_host(backend, request, tmp_path) as started:
        yield started


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_every_shipped_reference_solution_reaches_its_outcome_and_obeys_its_rules_on_postgresql(host):
    every_shipped_reference_passes(host, conversations_every=4)

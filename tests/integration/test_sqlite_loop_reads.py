"""SQLite reads on the event loop, bounded by SQLite's progress handler, and run again on a worker thread past it."""

import sqlite3
import threading
from collections.abc import Callable
from typing import Any

import anyio
import pytest

from aftersales.app import App
from aftersales.services import ticket_queries
from aftersales.storage import driver_cursor
from aftersales.storage.database import loop_reader
from aftersales.storage.models import Ticket
from aftersales.storage.runner import DatabaseRunner
from tests.support.database import count_rows

pytestmark = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)


def read_through(runner: DatabaseRunner, work: Callable[[], Any]) -> tuple[int, Any]:
    """(the event loop's thread, what `work` returned) of a read through `runner`, on a loop of its own."""

    async def run() -> tuple[int, Any]:
        return threading.get_ident(), await runner.read(work)

    return anyio.run(run)


def bounded(app: App, steps: int) -> DatabaseRunner:
    """A runner that tries reads on the loop, bounded to `steps`."""
    return DatabaseRunner(False, steps, lambda: app.engine)


def query(app: App, ticket_id: str, ran_on: list[int]) -> Callable[[], Any]:
    def work() -> Any:
        ran_on.append(threading.get_ident())
        return ticket_queries.query_ticket(app.uow(one_statement=True), ticket_id)

    return work


def test_a_read_past_its_bound_is_interrupted_and_answered_from_a_worker_thread_with_the_same_result(app, stories):
    ticket_id = stories["ticket_awaiting_return"]["ticket_id"]
    on_thread: list[int] = []
    _, expected = read_through(DatabaseRunner(False), query(app, ticket_id, on_thread))
    ran_on: list[int] = []
    runner = bounded(app, steps=20)  # the ticket's statement takes about 250 steps
    loop, answer = read_through(runner, query(app, ticket_id, ran_on))
    assert answer == expected and runner.reruns == 1
    assert ran_on[0] == loop and ran_on[1] != loop and len(ran_on) == 2


def test_a_read_within_its_bound_is_answered_on_the_event_loop(app, stories):
    ticket_id = stories["ticket_awaiting_return"]["ticket_id"]
    ran_on: list[int] = []
    runner = bounded(app, steps=10_000)
    loop, answer = read_through(runner, query(app, ticket_id, ran_on))
    assert answer.ticket_id == ticket_id and ran_on == [loop] and runner.reruns == 0


def test_a_read_when_the_reader_has_no_connection_to_spare_goes_straight_to_a_worker_thread(app, stories):
    reader = loop_reader(app.engine)
    assert reader is not None
    ran_on: list[int] = []
    taken = [reader[0].pool.connect() for _ in range(reader[0].pool.size())]  # type: ignore[attr-defined]
    try:
        loop, _ = read_through(bounded(app, 10_000), query(app, stories["ticket_awaiting_return"]["ticket_id"], ran_on))
    finally:
        for connection in taken:
            connection.close()
    assert ran_on != [loop] and len(ran_on) == 1


def test_reads_on_the_loop_run_only_their_own_statement_with_no_pragma_switched_around_each(app, stories):
    # Switching query_only on and off around each read expired every prepared statement of the connection, so each
    # read prepared its statement again: the reader's connections are read-only from the moment they open instead.
    ticket_id = stories["ticket_awaiting_return"]["ticket_id"]
    runner = bounded(app, 10_000)
    read_through(runner, query(app, ticket_id, []))
    reader = loop_reader(app.engine)
    assert reader is not None
    sent: list[str] = []
    with reader[0].connect() as connection:  # the reader's one connection so far, which the reads take again
        raw = connection.connection.dbapi_connection
        assert raw is not None and raw.execute("PRAGMA query_only").fetchone() == (1,)
        raw.set_trace_callback(sent.append)
    for _ in range(3):
        read_through(runner, query(app, ticket_id, []))
    assert len(sent) == 3 and all(statement.lstrip().startswith("SELECT") for statement in sent)
    assert runner.reruns == 0


def test_a_write_inside_a_read_on_the_loop_waits_for_no_lock_and_happens_once_on_a_worker_thread(app, stories):
    ticket_id, before = stories["ticket_awaiting_return"]["ticket_id"], count_rows(app.engine)
    ran_on: list[int] = []

    def work() -> None:
        ran_on.append(threading.get_ident())
        with app.uow(write=True) as uow:
            uow.session.query(Ticket).filter_by(id=ticket_id).update({"description": "changed"})
            uow.commit()

    runner = bounded(app, steps=10_000)
    loop, _ = read_through(runner, work)
    assert ran_on[0] == loop and ran_on[1] != loop and runner.reruns == 1
    with app.uow() as uow:
        assert uow.session.get(Ticket, ticket_id).description == "changed"
    assert count_rows(app.engine) == before


def test_the_writable_pool_is_never_made_read_only_or_bounded_by_reads_on_the_loop(app, stories):
    runner = bounded(app, steps=20)
    read_through(runner, query(app, stories["ticket_awaiting_return"]["ticket_id"], []))
    with app.engine.connect() as connection:
        raw = connection.connection.dbapi_connection
        assert raw is not None
        assert raw.execute("PRAGMA query_only").fetchone() == (0,)
        assert raw.execute("SELECT count(*) FROM tickets").fetchone()[0] > 0  # thousands of steps: not stopped


def test_disposing_an_engine_disposes_its_reader(app, stories):
    read_through(bounded(app, 10_000), query(app, stories["ticket_awaiting_return"]["ticket_id"], []))
    first = loop_reader(app.engine)
    assert first is not None and first[0].pool.checkedin() == 1  # type: ignore[attr-defined]
    app.engine.dispose()
    assert first[0].pool.checkedin() == 0  # type: ignore[attr-defined]
    second = loop_reader(app.engine)
    assert second is not None and second[0] is not first[0]


def test_a_lone_read_that_finds_the_file_busy_on_the_loop_runs_again_on_a_worker_thread(app, stories, monkeypatch):
    # The reader never waits for a lock (busy timeout 0); a lone read runs on the driver's cursor, which SQLAlchemy's
    # error events never see, so the read itself must send the read to a thread instead of failing the call.
    ticket_id, loop_thread = stories["ticket_awaiting_return"]["ticket_id"], []
    fetch = driver_cursor._fetch

    def busy_on_the_loop(driver: Any, sql: str, params: Any) -> Any:
        if threading.get_ident() in loop_thread:
            raise sqlite3.OperationalError("database is locked")
        return fetch(driver, sql, params)

    monkeypatch.setattr(driver_cursor, "_fetch", busy_on_the_loop)
    runner = bounded(app, 10_000)

    async def run() -> Any:
        loop_thread.append(threading.get_ident())
        return await runner.read(query(app, ticket_id, []))

    assert anyio.run(run).ticket_id == ticket_id and runner.reruns == 1

"""On PostgreSQL a call's database work runs on the event loop through asyncpg: no worker thread, no blocking driver;
on SQLite a bounded read does too, and a write hops to a worker thread."""

import threading
from collections.abc import Iterator
from typing import Any

import anyio.to_thread
import pytest
from psycopg import Cursor
from sqlalchemy.dialects.postgresql.asyncpg import AsyncAdapt_asyncpg_cursor

from tests.support.clients import connect
from tests.support.creation import create_arguments
from tests.support.elicitation import Person

# What the three calls read and write; the audit's tool_calls are written apart, in batches.
CALL_TABLES = ("tickets", "ticket_events", "quotes", "idempotency_records", "ticket_sequences", "rate_buckets")
pytestmark = pytest.mark.anyio
ON_POSTGRESQL = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
ON_SQLITE = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)


class Statements:
    """Every statement sent while watching, with the thread that sent it and through which driver."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, int, str]] = []  # driver, thread, statement
        self.hops: list[str] = []  # what was handed to a worker thread


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> Iterator[Statements]:
    """Record each statement at the driver (the ORM's and the driver-cursor reads alike) and each worker-thread hop."""
    seen = Statements()

    def watched(driver: str, execute: Any) -> Any:
        def run(cursor: Any, operation: Any, *args: Any, **kwargs: Any) -> Any:
            seen.sent.append((driver, threading.get_ident(), str(operation)))
            return execute(cursor, operation, *args, **kwargs)

        return run

    hop = anyio.to_thread.run_sync

    async def hopping(fn: Any, *args: Any, **kwargs: Any) -> Any:
        seen.hops.append(getattr(fn, "__qualname__", repr(fn)))
        return await hop(fn, *args, **kwargs)

    monkeypatch.setattr(AsyncAdapt_asyncpg_cursor, "execute", watched("asyncpg", AsyncAdapt_asyncpg_cursor.execute))
    monkeypatch.setattr(
        AsyncAdapt_asyncpg_cursor, "executemany", watched("asyncpg", AsyncAdapt_asyncpg_cursor.executemany)
    )
    monkeypatch.setattr(Cursor, "execute", watched("psycopg", Cursor.execute))
    monkeypatch.setattr(Cursor, "executemany", watched("psycopg", Cursor.executemany))
    monkeypatch.setattr(anyio.to_thread, "run_sync", hopping)
    yield seen


@ON_POSTGRESQL
async def test_a_query_an_estimate_and_a_two_round_create_run_every_statement_on_the_event_loop(
    server, mode, stories, statements
):
    loop_thread = threading.get_ident()
    order = stories["vip_laptop_recent"]["order_id"]
    async with connect(server, mode, elicitation_callback=Person(method="original_payment")) as client:
        statements.sent.clear()  # from here on: the calls only
        shown = await client.call_tool(
            "after_sales_query_ticket", {"ticket_id": stories["ticket_awaiting_return"]["ticket_id"]}
        )
        estimate = await client.call_tool(
            "after_sales_estimate_refund", {"order_id": order, "line_no": 1, "reason_code": "no_longer_needed"}
        )
        created = await client.call_tool("after_sales_create_ticket", create_arguments(order))
        calls = list(statements.sent)
    assert not shown.is_error and not estimate.is_error
    assert created.structured_content["outcome"] == "created"
    on_asyncpg = [statement for driver, _, statement in calls if driver == "asyncpg"]
    blocking = [(thread, statement) for driver, thread, statement in calls if driver == "psycopg"]
    # The create alone takes a number and writes the ticket, its events, its key and the rate buckets' rows.
    assert len(on_asyncpg) >= 6 and any("ticket_sequences" in statement for statement in on_asyncpg)
    assert {thread for driver, thread, _ in calls if driver == "asyncpg"} == {loop_thread}
    # psycopg stays only with the audit writer, on its own thread, writing tool-call records in batches.
    assert not [statement for thread, statement in blocking if thread == loop_thread]
    assert not [statement for _, statement in blocking if any(table in statement for table in CALL_TABLES)]
    assert statements.hops == []


@ON_SQLITE
@pytest.mark.settings(sqlite_loop_read_steps=10_000)
async def test_on_sqlite_a_bounded_query_is_answered_on_the_event_loop_and_a_create_on_a_worker_thread(
    server, app, stories, statements
):
    ticket_id, order = stories["ticket_awaiting_return"]["ticket_id"], stories["vip_laptop_recent"]["order_id"]
    # A read starts on the loop only when a pooled connection is free: two, so the audit writer may hold one.
    with app.engine.connect(), app.engine.connect():
        pass
    async with connect(server) as client:
        statements.hops.clear()
        shown = await client.call_tool("after_sales_query_ticket", {"ticket_id": ticket_id})
        read_hops = list(statements.hops)
        created = await client.call_tool(
            "after_sales_create_ticket", create_arguments(order, kind="repair", refund_method=None)
        )
    assert not shown.is_error and read_hops == []
    assert created.structured_content["outcome"] == "created" and len(statements.hops) >= 1

"""Database work on the event loop (storage.runner): on PostgreSQL through asyncpg, reading and failing as psycopg."""

import asyncio
from datetime import datetime, timedelta
from typing import Any

import anyio
import pytest
from sqlalchemy import event, select, text

from aftersales.app import App
from aftersales.domain.errors import ServiceUnavailable
from aftersales.services.ports.rows import Conflict
from aftersales.storage import runner
from aftersales.storage.database import BlockingOnLoop
from aftersales.storage.models import Order, Ticket
from tests.support.apps import settings_for

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)


def on_loop(app: App, work: Any) -> Any:
    """`work()` run through the app's runner, on an event loop of its own."""

    async def run() -> Any:
        return await app.database.read(work)

    return anyio.run(run)


def typed(value: Any) -> Any:
    """A value with the types of its parts, so an int read as a Decimal (or a naive time) differs."""
    if isinstance(value, tuple | list):
        return [typed(part) for part in value]
    if hasattr(value, "_asdict"):
        return typed(tuple(value))
    if isinstance(value, datetime):
        return (value, value.tzinfo is not None)
    return (type(value).__name__, value)


def test_the_hot_reads_give_the_same_rows_of_the_same_types_through_asyncpg_as_through_psycopg(app):
    with app.engine.connect() as connection:
        tickets = list(connection.scalars(select(Ticket.id).order_by(Ticket.id).limit(25)))
        orders = list(connection.scalars(select(Order.id).order_by(Order.id).limit(25)))
    assert app.database.on_loop and tickets and orders

    def read() -> list[Any]:
        with app.uow() as uow:
            return [
                *(uow.tickets.view(ticket, 10) for ticket in tickets),
                *(uow.tickets.details(ticket) for ticket in tickets),
                *(uow.tickets.timeline(ticket, 3) for ticket in tickets),
                *(uow.orders.line_facts(order, 1) for order in orders),
                *(uow.orders.order_line_facts(order) for order in orders),
                *(uow.orders.lines(order) for order in orders),
                uow.orders.line_facts("O-2026-999999", 1),
            ]

    assert typed(on_loop(app, read)) == typed(read())


def test_a_one_statement_read_on_asyncpg_leaves_no_transaction_open_and_refuses_a_second(app, stories):
    ticket = stories["ticket_awaiting_return"]["ticket_id"]

    def twice() -> None:
        with app.uow(one_statement=True) as uow:
            assert uow.tickets.details(ticket) is not None
            uow.tickets.details(ticket)

    with pytest.raises(RuntimeError, match="second statement"):
        on_loop(app, twice)
    with app.engine.connect() as connection:
        idle = connection.scalar(
            text("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in%'")
        )
    assert idle == 0


def test_a_second_claim_of_a_key_on_asyncpg_is_a_conflict(app):
    def claim() -> None:
        now = datetime.now().astimezone()
        with app.uow(write=True) as uow:
            uow.idempotency.claim("alice-bot", "a_tool", "the-key", {"a": 1}, now, now)
            uow.commit()

    on_loop(app, claim)
    with pytest.raises(Conflict):
        on_loop(app, claim)


@pytest.mark.settings(db_statement_timeout=timedelta(milliseconds=50))
def test_a_statement_past_the_statement_timeout_on_asyncpg_is_service_unavailable(app):
    def slow() -> None:
        with app.uow() as uow:
            uow.session.execute(text("SELECT pg_sleep(1)"))

    with pytest.raises(ServiceUnavailable):
        on_loop(app, slow)


def test_a_blocking_engine_reached_from_the_event_loop_is_refused(app):
    def blocking() -> None:
        with app.engine.connect() as connection:
            connection.execute(text("SELECT 1"))

    with pytest.raises(BlockingOnLoop):
        on_loop(app, blocking)


def test_each_event_loop_gets_connections_of_its_own_and_closes_them_when_it_ends(database_url, tmp_path):
    app = App(settings_for(database_url, tmp_path))
    try:

        def backends() -> int:
            with app.uow() as uow:
                return int(uow.session.scalar(text("SELECT pg_backend_pid()")) or 0)

        first, second = on_loop(app, backends), on_loop(app, backends)
        with app.engine.connect() as connection:
            alive = set(connection.scalars(text("SELECT pid FROM pg_stat_activity")))
        assert first != second and not {first, second} & alive
    finally:
        app.close()


def lone_reads(app: App, ticket: str, between: Any) -> list[Any]:
    """Three one-statement reads of `ticket` on one event loop, `between(kept)` run after the first: their answers.

    `kept` is the asyncpg connection the first read left kept for the next ones.
    """

    def read() -> Any:
        with app.uow(one_statement=True) as uow:
            return uow.tickets.details(ticket)

    async def run() -> list[Any]:
        answers = [await app.database.read(read)]
        twin = runner._twins[asyncio.get_running_loop()][app.engine]
        assert len(twin.kept) == 1
        between(twin.kept[0].driver_connection)
        answers += [await app.database.read(read), await app.database.read(read)]
        return answers

    return anyio.run(run)


def test_lone_reads_on_asyncpg_take_no_connection_from_the_pool_once_one_is_kept(app, stories):
    # Each read took a pooled connection, and each checkout pinged the server first: a round trip more a read.
    ticket, checkouts = stories["ticket_awaiting_return"]["ticket_id"], []

    def count_checkouts(kept: Any) -> None:
        twin = runner._twins[asyncio.get_running_loop()][app.engine]
        event.listen(twin.engine.sync_engine, "checkout", lambda *_: checkouts.append(1))

    answers = lone_reads(app, ticket, count_checkouts)
    assert [answer.id for answer in answers] == [ticket] * 3 and checkouts == []


def test_a_lone_read_whose_kept_connection_the_server_ended_runs_again_on_a_new_one(app, stories):
    ticket = stories["ticket_awaiting_return"]["ticket_id"]

    def end(kept: Any) -> None:
        pid = kept.get_server_pid()
        with app.engine.connect() as connection:  # psycopg, off the bridge
            assert connection.scalar(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})

    answers = lone_reads(app, ticket, end)
    assert [answer.id for answer in answers] == [ticket] * 3


def test_lone_reads_after_every_kept_connection_died_cost_no_error(app, stories):
    # After a restart every kept connection is dead: the retry must not take the next dead one.
    ticket = stories["ticket_awaiting_return"]["ticket_id"]

    def keep_two() -> None:
        with runner.kept_connection(app.engine), runner.kept_connection(app.engine):
            pass

    def read() -> Any:
        with app.uow(one_statement=True) as uow:
            return uow.tickets.details(ticket)

    async def run() -> list[Any]:
        await app.database.read(keep_two)
        kept = runner._twins[asyncio.get_running_loop()][app.engine].kept
        assert len(kept) == 2
        with app.engine.connect() as connection:  # psycopg, off the bridge
            for each in kept:
                connection.execute(
                    text("SELECT pg_terminate_backend(:pid)"), {"pid": each.driver_connection.get_server_pid()}
                )
        return [await app.database.read(read), await app.database.read(read)]

    assert [answer.id for answer in anyio.run(run)] == [ticket, ticket]

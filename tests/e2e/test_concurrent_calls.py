"""Concurrent creates through the real MCP client, where the calls' database work runs (on PostgreSQL the event
loop): one ticket per key, consecutive numbers."""

from datetime import timedelta

import anyio
import pytest
from sqlalchemy import select

from aftersales.clock import as_utc, now
from aftersales.storage.models import Order
from tests.support.clients import connect
from tests.support.creation import create_arguments
from tests.support.database import count_rows

pytestmark = pytest.mark.anyio
CALLS = 16  # within the default write burst (20), so no call is rate-limited
TOOL = "after_sales_create_ticket"


def repairable_lines(app, count: int) -> list[tuple[str, int]]:
    """(order, line) pairs inside their warranty with no ticket yet."""
    found = []
    with app.uow() as uow:
        for order in uow.session.scalars(select(Order).where(Order.status == "delivered").order_by(Order.id.desc())):
            for line in order.lines:
                in_warranty = now() - as_utc(order.delivered_at) < timedelta(days=30 * line.product.warranty_months - 2)
                facts = uow.orders.line_facts(order.id, line.line_no)
                if line.product.repairable and in_warranty and facts.committed_quantity == 0:
                    found.append((order.id, line.line_no))
            if len(found) >= count:
                return found[:count]
    raise AssertionError(f"only {len(found)} repairable lines")


async def calls_at_once(server, arguments: list[dict]) -> list:
    """Each call's result, all sent at once on one client."""
    results: list = [None] * len(arguments)
    async with connect(server) as client:

        async def call(index: int) -> None:
            results[index] = await client.call_tool(TOOL, arguments[index])

        async with anyio.create_task_group() as tasks:
            for index in range(len(arguments)):
                tasks.start_soon(call, index)
    return results


async def test_creates_sent_at_once_with_one_key_make_one_ticket_and_replay_or_retry_the_rest(server, app, stories):
    arguments = create_arguments(stories["cheap_tshirts_in_window"]["order_id"], refund_method="store_credit")
    before = count_rows(app.engine)
    results = await calls_at_once(server, [arguments] * CALLS)
    outcomes = [r.structured_content.get("outcome") if not r.is_error else "retryable" for r in results]
    assert outcomes.count("created") == 1 and set(outcomes) <= {"created", "replayed", "retryable"}, outcomes
    assert all("retry" in r.content[0].text.lower() for r in results if r.is_error)
    assert len({r.structured_content["ticket"]["ticket_id"] for r in results if not r.is_error}) == 1
    assert count_rows(app.engine) == before + 1


async def test_creates_sent_at_once_on_as_many_lines_get_consecutive_numbers(server, app):
    lines = repairable_lines(app, CALLS)
    arguments = [create_arguments(order, line_no=line, kind="repair") for order, line in lines]
    results = await calls_at_once(server, arguments)
    assert not [r.content for r in results if r.is_error]
    numbers = sorted(int(r.structured_content["ticket"]["ticket_id"].rsplit("-", 1)[1]) for r in results)
    assert numbers == list(range(numbers[0], numbers[0] + CALLS))

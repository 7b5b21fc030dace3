"""Worlds at scale: fifty used at once by one server, and one world served by two server processes."""

from contextlib import ExitStack

import anyio
import pytest
from sqlalchemy.engine import make_url

from aftersales.worlds.client import WorldsApiError, WorldsClient
from aftersales.worlds.model import ADMIN_SCOPE
from aftersales.worlds.storage.places import default_prefix
from tests.support.clients import bearer_token, connect_http
from tests.support.creation import create_arguments
from tests.support.episodes import CREATE, ESTIMATE, QUERY
from tests.support.postgres import scratch_database
from tests.support.serve import ServeProcess, new_key
from tests.support.worlds import PINNED, drop_databases, next_number

pytestmark = [pytest.mark.anyio, pytest.mark.http]
WORLDS = 50
ADMIN_ON = {"AFTERSALES_WORLDS_ADMIN": "true"}  # production servers serve /admin/worlds only when told to
EVENTS = {"added": 2, "removed": 0, "changed": 0}  # created, approved


async def test_fifty_worlds_made_and_used_at_once_each_hold_only_their_own_ticket(served_worlds, stories, baseline):
    admin, url = served_worlds.admin, served_worlds.url
    order, seeded = stories["cheap_tshirts_in_window"]["order_id"], stories["ticket_in_repair"]["ticket_id"]
    seen: dict[int, tuple] = {}

    async def episode(number: int) -> None:
        world = await anyio.to_thread.run_sync(lambda: admin.create(at=PINNED))
        words = f"Opened in world number {number}."
        async with connect_http(url, world.token) as client:
            made = await client.call_tool(
                CREATE, create_arguments(order, description=words, refund_method="original_payment")
            )
            assert not made.is_error, made.content
            ticket = made.structured_content["ticket"]["ticket_id"]
            own = await client.call_tool(QUERY, {"ticket_id": ticket})
            other = await client.call_tool(QUERY, {"ticket_id": seeded})
        assert not own.is_error and not other.is_error
        changes = await anyio.to_thread.run_sync(lambda: world.diff(tables=["tickets", "ticket_events"]))
        added = [row["row"]["description"] for row in changes["tables"]["tickets"]["added"]]
        seen[number] = (ticket, added, changes["summary"])

    async with anyio.create_task_group() as tasks:
        for number in range(WORLDS):
            tasks.start_soon(episode, number)
    assert len(seen) == WORLDS and len(admin.list()) == WORLDS
    assert {ticket for ticket, _, _ in seen.values()} == {next_number(baseline)}  # every world numbers alike
    for number, (_, added, summary) in seen.items():
        assert added == [f"Opened in world number {number}."]  # no other world's ticket, and its own exactly once
        assert summary == {"tickets": {"added": 1, "removed": 0, "changed": 0}, "ticket_events": EVENTS}


async def test_a_world_made_through_one_server_process_is_served_by_another_on_the_same_postgresql(
    postgres_template, postgres_admin_url, tmp_path, stories
):
    order = stories["cheap_tshirts_in_window"]["order_id"]
    keys, state_keys = [new_key()], new_key()
    with scratch_database(postgres_admin_url, make_url(postgres_template).database) as url, ExitStack() as stack:
        replicas = [
            ServeProcess(url, tmp_path / name, keys=keys, state_keys=state_keys, settings=ADMIN_ON)
            for name in ("first", "second")
        ]
        stack.callback(drop_databases, postgres_admin_url, default_prefix(url))  # whatever a failure leaves
        for replica in replicas:
            replica.folder.mkdir()
            stack.callback(replica.stop)
            replica.start()
        admin = bearer_token(keys, "harness", [ADMIN_SCOPE])
        first, second = (stack.enter_context(WorldsClient(replica.url, admin)) for replica in replicas)
        world = first.create(at=PINNED)  # made through the first process only
        async with connect_http(replicas[0].url, world.token) as client:
            quote = await client.call_tool(ESTIMATE, {"order_id": order, "line_no": 1, "reason_code": "defective"})
        async with connect_http(replicas[1].url, world.token) as client:
            arguments = create_arguments(
                order, quote_id=quote.structured_content["quote_id"], refund_method="original_payment"
            )
            made = await client.call_tool(CREATE, arguments)
        assert not made.is_error, made.content
        changes = second.diff(world.id)  # asked of the second process, which never saw the world made
        assert set(changes["summary"]) == {
            "tickets",
            "ticket_events",
            "ticket_sequences",
            "quotes",
            "idempotency_records",
        }
        assert [entry["tool"] for entry in first.trace(world.id)] == [ESTIMATE, CREATE]
        second.drop(world.id)
        with pytest.raises(WorldsApiError) as gone:
            first.get(world.id)
        assert gone.value.status == 404

"""HAProxy with the shipped configuration in front of three `aftersales serve` replicas on one PostgreSQL database.

Every call goes through the balancer, as a deployment's clients would. The replicas and the balancer are started
once for the file (the `balanced` fixture); each test leaves all three replicas serving.
"""

import itertools
import signal
import time
from dataclasses import dataclass, field

import anyio
import httpx
import httpx2
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED
from sqlalchemy import select

from aftersales.storage.models import IdempotencyRecord, Ticket
from tests.support.balancer import BALANCER_SETTINGS, SERVED_BY, BalancedFleet, Balancer
from tests.support.cancellation import cancel_arguments
from tests.support.clients import connect_http
from tests.support.creation import create_arguments
from tests.support.database import engine_at, untouched_orders
from tests.support.elicitation import Person
from tests.support.free_ports import free_port

pytestmark = [pytest.mark.anyio, pytest.mark.http]
CREATE, CANCEL, QUERY = "after_sales_create_ticket", "after_sales_cancel_ticket", "after_sales_query_ticket"
LANES, ROUNDS = 4, 5  # 2025-11-25 clients at once, and the sessions each opens one after the other
KILL_LANES, KILL_CREATES = 3, 6  # 2026-07-28 clients at once, and the tickets each opens while a replica is killed
ATTEMPTS = 5  # calls of one create before a test gives up on it
BACK_WITHIN = 20.0  # seconds a restarted replica has to be taken back


@dataclass
class Seen:
    """An httpx response hook: which replica answered each request, and under which session id."""

    answers: list[tuple[str, str | None]] = field(default_factory=list)

    async def __call__(self, response: httpx2.Response) -> None:
        session = response.request.headers.get("mcp-session-id") or response.headers.get("mcp-session-id")
        self.answers.append((response.headers[SERVED_BY], session))

    @property
    def replicas(self) -> set[str]:
        return {replica for replica, _ in self.answers}


def tickets_of(url: str, ticket_ids: list[str]) -> dict[str, str]:
    """The status of each of these tickets, as the database holds them."""
    with engine_at(url) as engine, engine.connect() as connection:
        rows = connection.execute(select(Ticket.id, Ticket.status).where(Ticket.id.in_(ticket_ids)))
        return {ticket: status for ticket, status in rows}


def tickets_of_orders(url: str, order_ids: list[str]) -> dict[str, list[str]]:
    """The tickets each of these orders has."""
    found: dict[str, list[str]] = {order: [] for order in order_ids}
    with engine_at(url) as engine, engine.connect() as connection:
        for ticket, order in connection.execute(
            select(Ticket.id, Ticket.order_id).where(Ticket.order_id.in_(order_ids))
        ):
            found[order].append(ticket)
    return found


def records_of(url: str, keys: dict[str, str]) -> dict[str, list[str | None]]:
    """The tickets the idempotency records of these keys (by order) point to."""
    found: dict[str, list[str | None]] = {key: [] for key in keys.values()}
    query = select(IdempotencyRecord.key, IdempotencyRecord.ticket_id).where(IdempotencyRecord.key.in_(keys.values()))
    with engine_at(url) as engine, engine.connect() as connection:
        for key, ticket in connection.execute(query):
            found[key].append(ticket)
    return found


async def test_2025_11_25_sessions_keep_every_request_on_one_replica_through_their_questions_and_lose_nothing(
    balanced: BalancedFleet,
):
    orders, token = untouched_orders(balanced.database_url, LANES), balanced.token()
    done: list[tuple[str, str, list[str], Seen]] = []

    async def lane(order: str) -> None:
        for _ in range(ROUNDS):
            person, seen = Person(), Seen()
            async with connect_http(
                balanced.url, token, mode="legacy", elicitation_callback=person, on_response=seen
            ) as client:
                made = await client.call_tool(CREATE, create_arguments(order))  # no refund method: the person is asked
                assert not made.is_error, made.content
                ticket = made.structured_content["ticket"]["ticket_id"]
                cancelled = await client.call_tool(CANCEL, cancel_arguments(ticket))  # the person confirms
                assert not cancelled.is_error and cancelled.structured_content["outcome"] == "cancelled", cancelled
            done.append((order, ticket, person.questions, seen))

    async with anyio.create_task_group() as lanes:
        for order in orders:
            lanes.start_soon(lane, order)
    assert len(done) == LANES * ROUNDS
    for _, _, questions, seen in done:
        assert questions[0] == "refund_method" and questions[-1] == "confirm"  # the create's question, the cancel's
        assert len(seen.replicas) == 1, seen.answers  # the session's answers, its GET stream and DELETE: one replica
        assert len({session for _, session in seen.answers} - {None}) == 1
    made = [ticket for _, ticket, _, _ in done]
    assert tickets_of(balanced.database_url, made) == dict.fromkeys(made, "cancelled")  # every one, once
    assert {
        order: len(found) for order, found in tickets_of_orders(balanced.database_url, orders).items()
    } == dict.fromkeys(orders, ROUNDS)
    assert len(set().union(*(seen.replicas for _, _, _, seen in done))) > 1  # sessions were spread, not all on one


async def test_2026_07_28_calls_go_round_robin_and_the_replica_named_is_the_one_that_answered(
    balanced: BalancedFleet, stories
):
    seen, ticket = Seen(), stories["ticket_in_repair"]["ticket_id"]
    async with connect_http(balanced.url, balanced.token(), on_response=seen) as client:
        for _ in range(2 * len(balanced.replicas)):
            shown = await client.call_tool(QUERY, {"ticket_id": ticket})
            assert not shown.is_error and shown.structured_content["ticket_id"] == ticket
    calls = [replica for replica, _ in seen.answers[-2 * len(balanced.replicas) :]]
    assert set(calls) == set(balanced.replicas) and all(a != b for a, b in itertools.pairwise(calls))
    # The name the balancer gives is the replica that answered: each one's /healthz tells its own pid.
    with httpx.Client(base_url=balanced.url) as http:
        for _ in range(2 * len(balanced.replicas)):
            answer = http.get("/healthz")
            replica = balanced.replicas[answer.headers[SERVED_BY]]
            assert replica.process is not None and answer.json()["pid"] == replica.process.pid


def retryable(error: Exception) -> bool:
    """Whether a client's error on a call tells it to call again: the connection or its stream dropped, or the
    balancer's own answer (which says so)."""
    if isinstance(error, httpx2.TransportError):
        return True
    return isinstance(error, MCPError) and (
        error.error.code == CONNECTION_CLOSED or "same idempotency key" in error.error.message
    )


def transport_errors(group: BaseExceptionGroup) -> list[Exception]:
    """The errors a client's task group raised, or the group itself when it holds anything but transport errors."""
    matched, rest = group.split(httpx2.TransportError)
    if rest is not None or matched is None:
        raise group
    return list(matched.exceptions)  # type: ignore[arg-type]


async def test_a_replica_killed_under_load_loses_no_ticket_makes_none_twice_and_is_used_again_once_back(
    balanced: BalancedFleet,
):
    orders, token = untouched_orders(balanced.database_url, KILL_LANES * KILL_CREATES), balanced.token()
    victim = balanced.replicas["replica2"]
    made: dict[str, list[dict]] = {}
    keys: dict[str, str] = {}
    errors: list[Exception] = []
    started = anyio.Event()

    async def create(order: str) -> None:
        """Open a ticket for `order`, calling again with the same key (on a new connection) after an error."""
        arguments = create_arguments(order, refund_method="store_credit")
        keys[order] = arguments["idempotency_key"]
        for _ in range(ATTEMPTS):
            try:
                async with connect_http(balanced.url, token, elicitation_callback=Person()) as client:
                    result = await client.call_tool(CREATE, arguments)
            except MCPError as error:
                errors.append(error)
                continue
            except BaseExceptionGroup as group:  # the client's connection itself failed
                errors.extend(transport_errors(group))
                continue
            assert not result.is_error, result.content
            made.setdefault(order, []).append(result.structured_content)
            return
        raise AssertionError(f"{order}: no ticket after {ATTEMPTS} attempts; errors: {errors}")

    async def lane(mine: list[str]) -> None:
        for number, order in enumerate(mine):
            if number == KILL_CREATES // 3:
                started.set()
            await create(order)

    async with anyio.create_task_group() as lanes:
        for number in range(KILL_LANES):
            lanes.start_soon(lane, orders[number::KILL_LANES])
        await started.wait()
        victim.signal(signal.SIGKILL)  # mid-run, with calls in flight
        await anyio.to_thread.run_sync(victim.wait, 10)
        victim.launch()  # back on its port while the others carry the load (it takes seconds to start)

    assert all(retryable(error) for error in errors), errors
    assert sorted(made) == sorted(orders) and all(len(results) == 1 for results in made.values())
    # One ticket per order in the database, the one its client was given, and one idempotency record per key.
    found = tickets_of_orders(balanced.database_url, orders)
    assert found == {order: [results[0]["ticket"]["ticket_id"]] for order, results in made.items()}
    assert records_of(balanced.database_url, keys) == {key: found[order] for order, key in keys.items()}

    await anyio.to_thread.run_sync(victim.wait_ready)
    seen, deadline = Seen(), time.monotonic() + BACK_WITHIN
    async with connect_http(balanced.url, token, on_response=seen) as client:
        while "replica2" not in seen.replicas:
            assert time.monotonic() < deadline, f"replica2 not used again in {BACK_WITHIN} s: {seen.answers}"
            await client.call_tool(QUERY, {"ticket_id": found[orders[0]][0]})


async def test_the_balancer_s_own_error_when_no_replica_answers_tells_the_client_to_call_again(tmp_path):
    # Nothing listens on these ports: every attempt is refused, as with every replica down at once.
    balancer = Balancer([f"127.0.0.1:{free_port()}" for _ in range(3)], tmp_path)
    answers: list[httpx2.Response] = []

    async def keep(response: httpx2.Response) -> None:
        answers.append(response)

    balancer.start()
    try:
        async with connect_http(balancer.url, "any-token", mode="2026-07-28", on_response=keep) as client:
            with pytest.raises(MCPError) as refused:
                await client.call_tool(QUERY, {"ticket_id": "T-2026-0001"})
    finally:
        balancer.stop()
    assert retryable(refused.value) and "call again in 5 seconds" in refused.value.error.message
    assert [(answer.status_code, answer.headers["retry-after"]) for answer in answers] == [(503, "5")]


async def test_the_balancer_counts_tool_calls_per_channel_from_the_mirrored_header_and_refuses_one_over_the_limit(
    balanced: BalancedFleet,
):
    limit = int(BALANCER_SETTINGS["CHANNEL_CALLS_PER_10S"])
    unknown = cancel_arguments("T-2026-999999")  # the server answers each with a tool error: nothing is written
    sent: list[httpx2.Request] = []
    async with connect_http(balanced.url, balanced.token(), mode="2026-07-28", sent=sent) as client:
        answered = [await client.call_tool(CANCEL, unknown | {"channel": "web"}) for _ in range(limit)]
        with pytest.raises(MCPError) as refused:
            await client.call_tool(CANCEL, unknown | {"channel": "web"})
        other = await client.call_tool(CANCEL, unknown | {"channel": "app"})  # another channel has its own count
        none = await client.call_tool(CANCEL, unknown)  # a call without a channel is not counted
    assert all(answer.is_error and "T-2026-999999" in answer.content[0].text for answer in [*answered, other, none])
    message = refused.value.error.message
    assert "Too many tool calls from this channel" in message and "Wait 10 seconds" in message
    calls = [request for request in sent if request.headers.get("mcp-method") == "tools/call"]
    mirrored = [request.headers.get("mcp-param-channel") for request in calls]
    # (The SDK's first call goes out before it has the tool's schema, so without the header.)
    assert [channel for channel in mirrored if channel] == ["web"] * (limit + 1) + ["app"] and mirrored[-1] is None

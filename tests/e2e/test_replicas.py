"""Two `aftersales serve` processes on one PostgreSQL database, sharing caller and requestState keys (and so the
rate buckets in the database)."""

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from mcp_types import InputRequiredResult
from sqlalchemy.engine import make_url

from tests.support.clients import connect_http
from tests.support.creation import create_arguments
from tests.support.database import count_rows, engine_at, untouched_orders
from tests.support.elicitation import Person, second_round
from tests.support.postgres import scratch_database
from tests.support.serve import ServeProcess, new_key

pytestmark = [pytest.mark.anyio, pytest.mark.http]
TOOL = "after_sales_create_ticket"
# Reads a caller may make at once, and one more a minute: small enough to meet in a test, large enough that the other
# tests' few reads (each as its own caller, support-bot) never do.
READ_BURST = 10
LIMITS = {"AFTERSALES_RATE_READ_BURST": str(READ_BURST), "AFTERSALES_RATE_READ_PER_MINUTE": "1"}


@dataclass
class Fleet:
    """Replicas A and B: their own ports and data dirs, one database, one set of keys."""

    a: ServeProcess
    b: ServeProcess
    token: str
    database_url: str

    def tickets(self) -> int:
        with engine_at(self.database_url) as engine:
            return count_rows(engine)


@pytest.fixture(scope="module")
def fleet(postgres_template: str, postgres_admin_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    """Replicas A and B on a private copy of the seeded PostgreSQL database."""
    with scratch_database(postgres_admin_url, make_url(postgres_template).database) as url:
        keys, state_keys = [new_key()], new_key()
        replicas = [
            ServeProcess(
                url, tmp_path_factory.mktemp(f"replica-{letter}"), keys=keys, state_keys=state_keys, settings=LIMITS
            )
            for letter in "ab"
        ]
        try:
            for replica in replicas:
                replica.start()
            yield Fleet(replicas[0], replicas[1], replicas[0].token(), url)
        finally:
            for replica in replicas:
                replica.stop()


async def first_round(url: str, token: str, arguments: dict) -> InputRequiredResult:
    async with connect_http(url, token, elicitation_callback=Person()) as client:
        first = await client.session.call_tool(TOOL, arguments, allow_input_required=True)
    assert isinstance(first, InputRequiredResult)
    return first


async def finish(url: str, token: str, arguments: dict, first: InputRequiredResult) -> dict:
    async with connect_http(url, token, elicitation_callback=Person()) as client:
        done = await second_round(client.session, TOOL, arguments, first)
    return done.structured_content


async def test_the_first_round_on_a_and_the_retry_on_b_create_the_ticket(fleet, stories):
    arguments, before = create_arguments(stories["vip_laptop_recent"]["order_id"]), fleet.tickets()
    first = await first_round(fleet.a.url, fleet.token, arguments)
    done = await finish(fleet.b.url, fleet.token, arguments, first)
    assert done["outcome"] == "created" and fleet.tickets() == before + 1
    async with connect_http(fleet.a.url, fleet.token) as client:
        shown = await client.call_tool("after_sales_query_ticket", {"ticket_id": done["ticket"]["ticket_id"]})
    assert shown.structured_content["ticket_id"] == done["ticket"]["ticket_id"]


async def test_a_quote_estimated_on_a_is_usable_on_b(fleet, stories):
    order_id = stories["headphones_in_window_qty3"]["order_id"]
    async with connect_http(fleet.a.url, fleet.token) as client:
        quote = (
            await client.call_tool(
                "after_sales_estimate_refund",
                {"order_id": order_id, "line_no": 1, "quantity": 2, "reason_code": "damaged"},
            )
        ).structured_content
    async with connect_http(fleet.b.url, fleet.token) as client:
        created = await client.call_tool(
            TOOL,
            create_arguments(
                order_id, quantity=2, reason_code="damaged", refund_method="store_credit", quote_id=quote["quote_id"]
            ),
        )
    assert created.structured_content["ticket"]["refund"]["amount"] == quote["total"]


async def test_a_page_of_orders_found_on_a_continues_on_b(fleet, stories):
    story = stories["email_only_headphones"]
    async with connect_http(fleet.a.url, fleet.token) as client:
        first = (
            await client.call_tool("after_sales_find_orders", {"email": story["email"], "limit": 1})
        ).structured_content
    async with connect_http(fleet.b.url, fleet.token) as client:
        arguments = {"email": story["email"], "limit": 1, "cursor": first["next_cursor"]}
        second = await client.call_tool("after_sales_find_orders", arguments)
    assert not second.is_error and second.structured_content["orders"][0]["order_id"] != story["order_id"]


async def test_idempotent_retries_alternating_between_replicas_give_one_ticket(fleet, stories):
    arguments, before = (
        create_arguments(stories["cheap_tshirts_in_window"]["order_id"], refund_method="store_credit"),
        fleet.tickets(),
    )
    outcomes = []
    for url in (fleet.a.url, fleet.b.url, fleet.a.url, fleet.b.url):
        async with connect_http(url, fleet.token) as client:
            outcomes.append((await client.call_tool(TOOL, arguments)).structured_content)
    assert [o["outcome"] for o in outcomes] == ["created", "replayed", "replayed", "replayed"]
    assert len({o["ticket"]["ticket_id"] for o in outcomes}) == 1 and fleet.tickets() == before + 1


async def test_restarting_a_replica_between_rounds_loses_nothing(fleet):
    arguments, before = create_arguments(untouched_orders(fleet.database_url, 1)[0]), fleet.tickets()
    first = await first_round(fleet.a.url, fleet.token, arguments)
    fleet.a.stop()  # SIGTERM, as an orchestrator restarting it would send
    fleet.a.start()
    done = await finish(fleet.a.url, fleet.token, arguments, first)
    assert done["outcome"] == "created" and fleet.tickets() == before + 1


async def test_a_caller_gets_its_read_limit_across_both_replicas_not_twice_it(fleet, stories):
    token, query = fleet.a.token("limited-bot"), {"ticket_id": stories["ticket_under_review"]["ticket_id"]}
    served, refused = {"a": 0, "b": 0}, []
    async with connect_http(fleet.a.url, token) as a, connect_http(fleet.b.url, token) as b:
        for n in range(3 * READ_BURST):  # each replica alone would serve a burst: twice the limit in all
            replica, client = ("a", a) if n % 2 == 0 else ("b", b)
            result = await client.call_tool("after_sales_query_ticket", query)
            meta = result.meta or {}
            if meta.get("aftersales/error") == "rate_limited":
                refused.append(meta["aftersales/retryAfterSeconds"])
            else:
                assert not result.is_error, result.content
                served[replica] += 1
    assert sum(served.values()) == READ_BURST and served["a"] > 0 and served["b"] > 0
    assert len(refused) == 2 * READ_BURST and all(0 < wait <= 60 for wait in refused)

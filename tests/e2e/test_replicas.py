"""Two `aftersales serve` processes on one PostgreSQL database, sharing caller and requestState keys."""

import os
import secrets
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from mcp_types import InputRequiredResult
from sqlalchemy import func, select, text
from sqlalchemy.engine import make_url

from aftersales.clock import now
from aftersales.security import tokens
from aftersales.storage.database import make_engine
from aftersales.storage.models import Ticket
from tests.conftest import scratch_database
from tests.e2e.elicitation import Person, second_round
from tests.e2e.helpers import connect_http
from tests.support.web import free_port

pytestmark = [pytest.mark.anyio, pytest.mark.http]
TOOL = "after_sales_create_ticket"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Replica:
    """One server process."""

    env: dict[str, str]
    port: int
    log: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start `aftersales serve` and wait until /readyz answers 200."""
        argv = [sys.executable, "-m", "aftersales", "serve", "--port", str(self.port)]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(argv, env=self.env, stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"replica exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/readyz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("replica did not become ready")

    def stop(self) -> None:
        """Stop gracefully (SIGTERM), as an orchestrator would."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(30)


@dataclass
class Fleet:
    a: Replica
    b: Replica
    token: str
    database_url: str

    def tickets(self) -> int:
        engine = make_engine(self.database_url)
        with engine.connect() as connection:
            count = connection.scalar(select(func.count()).select_from(Ticket))
        engine.dispose()
        return count


@pytest.fixture(scope="module")
def fleet(postgres_template: str, postgres_admin_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    """Replicas A and B on a private copy of the seeded PostgreSQL database."""
    with scratch_database(postgres_admin_url, make_url(postgres_template).database) as url:
        secret, state = secrets.token_urlsafe(48), secrets.token_urlsafe(48)
        base = {
            **os.environ,
            "AFTERSALES_DATABASE_URL": url,
            "AFTERSALES_SECRET_KEYS": secret,
            "AFTERSALES_STATE_KEYS": state,
            "AFTERSALES_ENV": "production",
            "AFTERSALES_LOG_LEVEL": "WARNING",
        }
        replicas = []
        for letter in "ab":
            folder = tmp_path_factory.mktemp(f"replica-{letter}")
            replicas.append(Replica({**base, "AFTERSALES_DATA_DIR": str(folder)}, free_port(), folder / "server.log"))
        token = tokens.issue([secret], "support-bot", ["tickets:read", "tickets:write"], timedelta(hours=1), now())
        try:
            for replica in replicas:
                replica.start()
            yield Fleet(replicas[0], replicas[1], token, url)
        finally:
            for replica in replicas:
                replica.stop()


def call(order_id: str, **changes) -> dict:
    return {
        "order_id": order_id,
        "line_no": 1,
        "kind": "return_and_refund",
        "reason_code": "defective",
        "description": "Stopped charging after a week.",
        "idempotency_key": str(uuid.uuid4()),
    } | changes


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
    arguments, before = call(stories["vip_laptop_recent"]["order_id"]), fleet.tickets()
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
            call(order_id, quantity=2, reason_code="damaged", refund_method="store_credit", quote_id=quote["quote_id"]),
        )
    assert created.structured_content["ticket"]["refund"]["amount"] == quote["total"]


async def test_idempotent_retries_alternating_between_replicas_give_one_ticket(fleet, stories):
    arguments, before = (
        call(stories["cheap_tshirts_in_window"]["order_id"], refund_method="store_credit"),
        fleet.tickets(),
    )
    outcomes = []
    for url in (fleet.a.url, fleet.b.url, fleet.a.url, fleet.b.url):
        async with connect_http(url, fleet.token) as client:
            outcomes.append((await client.call_tool(TOOL, arguments)).structured_content)
    assert [o["outcome"] for o in outcomes] == ["created", "replayed", "replayed", "replayed"]
    assert len({o["ticket"]["ticket_id"] for o in outcomes}) == 1 and fleet.tickets() == before + 1


async def test_restarting_a_replica_between_rounds_loses_nothing(fleet):
    arguments, before = call(_untouched_in_window_order(fleet)), fleet.tickets()
    first = await first_round(fleet.a.url, fleet.token, arguments)
    fleet.a.stop()
    fleet.a.start()
    done = await finish(fleet.a.url, fleet.token, arguments, first)
    assert done["outcome"] == "created" and fleet.tickets() == before + 1


def _untouched_in_window_order(fleet: Fleet) -> str:
    """A single-line order delivered in the last few days, returnable, with no ticket yet."""
    engine = make_engine(fleet.database_url)
    query = text(
        "SELECT o.id FROM orders o JOIN order_lines l ON l.order_id = o.id JOIN products p ON p.sku = l.sku "
        "WHERE o.status = 'delivered' AND o.delivered_at > now() - interval '5 days' AND p.returnable "
        "AND o.payment_method <> 'gift_card' AND NOT EXISTS (SELECT 1 FROM tickets t WHERE t.order_id = o.id) "
        "GROUP BY o.id HAVING count(*) = 1 ORDER BY o.id LIMIT 1"
    )
    with engine.connect() as connection:
        order_id = connection.scalar(query)
    engine.dispose()
    assert order_id is not None
    return order_id

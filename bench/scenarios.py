"""What the bench calls: generated worlds, inputs sampled from them, and the scenarios (one operation each)."""

import random
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from datetime import time as midnight
from pathlib import Path
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.engine import make_url

from aftersales.clock import as_utc, now
from aftersales.seeding import bulk
from aftersales.storage import migrate
from aftersales.storage.database import make_engine
from aftersales.storage.models import Category, Order, OrderLine, Product, Ticket
from bench.load import Session


def kept_world(database: Path, rebuild: bool = False) -> str:
    """The URL of a generated SQLite world kept in `database` between runs, built when absent or asked to."""
    if not database.exists() or rebuild:
        print(f"building {database} ...", flush=True)
        build_world(sqlite_url(database), 20000, 60000, 20000, progress=False)
    return f"sqlite:///{database}"


def sqlite_url(database: Path) -> str:
    """The URL of a SQLite file, after removing what an earlier run left there."""
    database.parent.mkdir(parents=True, exist_ok=True)
    for stale in database.parent.glob(database.name + "*"):
        stale.unlink()
    return f"sqlite:///{database}"


def postgres_url(server: str, name: str) -> str:
    """A fresh, empty database called `name` on the PostgreSQL server at `server`."""
    admin = make_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        connection.execute(text(f"CREATE DATABASE {name}"))
    admin.dispose()
    return make_url(server).set(database=name).render_as_string(hide_password=False)


def build_world(url: str, customers: int, orders: int, tickets: int, progress: bool) -> None:
    """A migrated database at `url` holding a generated world anchored at today."""
    engine = make_engine(url)
    migrate.upgrade(engine)
    anchor = datetime.combine(now().date(), midnight(), UTC)
    bulk.generate_into(engine, customers, orders, tickets, progress=progress, anchor=anchor)
    engine.dispose()


@dataclass
class Inputs:
    """What the scenarios call with: ticket numbers, and order lines by what they allow."""

    tickets: list[str]
    returnable: list[tuple[str, int]]  # delivered inside the return window, no ticket, not paid by gift card
    repairable: list[tuple[str, int]]  # inside the warranty, no ticket


def inputs_from(url: str, limit: int = 20000) -> Inputs:
    """Sample scenario inputs from the database (deterministically)."""
    engine = make_engine(url)
    today = now()
    with engine.connect() as connection:
        tickets = list(connection.scalars(select(Ticket.id).order_by(Ticket.id).limit(limit)))
        taken = {(o, n) for o, n in connection.execute(text("SELECT order_id, line_no FROM tickets"))}
        policy = select(
            Product.sku, Product.returnable, Product.repairable, Product.warranty_months, Category.return_window_days
        ).join(Category, Category.code == Product.category_code)
        products = {sku: facts for sku, *facts in connection.execute(policy)}
        rows = connection.execute(
            select(Order.id, Order.delivered_at, Order.payment_method, OrderLine.line_no, OrderLine.sku)
            .join(OrderLine, OrderLine.order_id == Order.id)
            .where(Order.status == "delivered")
        ).all()
    engine.dispose()
    returnable, repairable = [], []
    for order_id, delivered_at, payment, line_no, sku in rows:
        if (order_id, line_no) in taken:
            continue
        can_return, can_repair, warranty, window = products[sku]
        age = (today - as_utc(delivered_at)).days
        if can_return and age < window - 1 and payment != "gift_card":
            returnable.append((order_id, line_no))
        elif can_repair and age < 30 * warranty - 2:
            repairable.append((order_id, line_no))
    shuffle = random.Random(7)
    shuffle.shuffle(returnable)
    shuffle.shuffle(repairable)
    return Inputs(tickets, returnable, repairable)


def answers(first: dict[str, Any]) -> dict[str, Any]:
    """Accept every question of an input_required round (store credit; yes)."""
    responses = {}
    for key, request in first["inputRequests"].items():
        fields = request["params"]["requestedSchema"]["properties"]
        content = {"refund_method": "store_credit"} if "refund_method" in fields else {"confirm": True}
        responses[key] = {"action": "accept", "content": content}
    return responses


def scenarios(inputs: Inputs) -> dict[str, Any]:
    """The operations, each taking (session, counter)."""
    estimate_lines, create_lines, two_round_lines = inputs.returnable[::2], inputs.repairable, inputs.returnable[1::2]

    def unused(lines: list[tuple[str, int]]) -> tuple[str, int]:
        # A line gets one ticket only; a run that used them all says so instead of failing every call.
        if not lines:
            raise RuntimeError("the world has no unused order line left")
        return lines.pop()

    async def query(session: Session, n: int) -> None:
        await session.call("after_sales_query_ticket", {"ticket_id": inputs.tickets[n % len(inputs.tickets)]})

    async def estimate(session: Session, n: int) -> None:
        order_id, line_no = estimate_lines[n % len(estimate_lines)]
        await session.call(
            "after_sales_estimate_refund", {"order_id": order_id, "line_no": line_no, "reason_code": "defective"}
        )

    async def create(session: Session, n: int) -> None:
        order_id, line_no = unused(create_lines)
        result = await session.call(
            "after_sales_create_ticket",
            {
                "order_id": order_id,
                "line_no": line_no,
                "kind": "repair",
                "reason_code": "defective",
                "description": "Stopped working after a month.",
                "idempotency_key": f"bench-{uuid.uuid4()}",
            },
        )
        if result["structuredContent"]["outcome"] != "created":
            raise RuntimeError("not created")

    async def two_round(session: Session, n: int) -> None:
        order_id, line_no = unused(two_round_lines)
        arguments = {
            "order_id": order_id,
            "line_no": line_no,
            "kind": "return_and_refund",
            "reason_code": "defective",
            "description": "Arrived broken.",
            "idempotency_key": f"bench-{uuid.uuid4()}",
        }
        first = await session.call("after_sales_create_ticket", arguments)
        if first.get("resultType") != "input_required":
            raise RuntimeError("no input_required round")
        # A client echoes requestState when the server sent one (the server does; the FastMCP peer needs none).
        state = {"requestState": first["requestState"]} if "requestState" in first else {}
        done = await session.call("after_sales_create_ticket", arguments, inputResponses=answers(first), **state)
        if done["structuredContent"]["outcome"] != "created":
            raise RuntimeError("not created")

    async def mixed(session: Session, n: int) -> None:
        await (query, estimate, create)[n % 3](session, n)

    return {
        "mixed": mixed,
        "query_ticket": query,
        "estimate_refund": estimate,
        "create_ticket": create,
        "input_required_create": two_round,
    }

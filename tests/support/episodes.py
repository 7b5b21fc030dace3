"""Worlds over HTTP for end-to-end tests: an app serving worlds, an admin client, and a scripted episode."""

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2

from aftersales.app import App
from aftersales.web.app import create_web_app
from aftersales.worlds.client import World, WorldsClient
from aftersales.worlds.model import ADMIN_SCOPE
from tests.support.clients import bearer_token, connect_http
from tests.support.creation import create_arguments
from tests.support.elicitation import Person
from tests.support.free_ports import free_port
from tests.support.web import serving
from tests.support.worlds import WorldsHome

ESTIMATE, CREATE, QUERY = "after_sales_estimate_refund", "after_sales_create_ticket", "after_sales_query_ticket"


@dataclass
class Served:
    """An app serving worlds over HTTP, and an admin client for its /admin/worlds."""

    app: App
    url: str
    admin: WorldsClient


@contextmanager
def serving_worlds(
    home: WorldsHome,
    database_url: str,
    folder: Path,
    issuer: httpx2.AsyncBaseTransport | None = None,
    **changes: Any,
) -> Iterator[Served]:
    """Serve `database_url` (the control database) with uvicorn; every world made meanwhile is dropped afterwards.

    The app's `port` is the one it listens on, so the links it hands out (a bank-account page's) open there.
    `issuer`: how the app reaches its OAuth issuer (an issuer in memory), with the OAuth settings in `changes`.
    """
    changes = {"port": free_port(), **changes}
    app = App(home.settings(database_url, folder / "var", **changes), issuer_transport=issuer)
    try:
        with serving(create_web_app(app), app.settings.port) as url, WorldsClient(url, admin_token(app)) as admin:
            yield Served(app, url, admin)
    finally:
        with ThreadPoolExecutor(8) as dropping:  # a PostgreSQL DROP DATABASE takes a while; many run at once
            list(dropping.map(app.worlds.drop, [world.id for world in app.worlds.registry.all()]))
        app.close()


def admin_token(app: App, caller: str = "harness") -> str:
    """A token that opens the admin API (and no tool)."""
    return bearer_token(app.caller_keys, caller, [ADMIN_SCOPE])


@dataclass
class Episode:
    """What one scripted episode got back: the estimate, the created ticket and the replay."""

    quote_id: str
    ticket_id: str
    replay_outcome: str
    person: Person


async def episode(world: World, mode: str, order_id: str, key: str = "episode-key-0001") -> Episode:
    """Estimate a return, create the ticket with the person answering the server's form, then replay the create."""
    person = Person(method="store_credit")
    async with connect_http(world.url.removesuffix("/mcp"), world.token, mode, elicitation_callback=person) as client:
        estimate = await client.call_tool(ESTIMATE, {"order_id": order_id, "line_no": 1, "reason_code": "defective"})
        assert not estimate.is_error, estimate.content
        quote_id = estimate.structured_content["quote_id"]
        arguments = create_arguments(order_id, quote_id=quote_id, idempotency_key=key)
        created = await client.call_tool(CREATE, arguments)
        assert not created.is_error and created.structured_content["outcome"] == "created", created.content
        replayed = await client.call_tool(CREATE, arguments)
    return Episode(
        quote_id=quote_id,
        ticket_id=created.structured_content["ticket"]["ticket_id"],
        replay_outcome=replayed.structured_content["outcome"],
        person=person,
    )

"""Helpers for the bank-account flow: the page served in process or over HTTP, a person who fills it in, a form-only
client, a page opened through the service."""

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx2
from mcp.client.session import ClientSession
from mcp_types import ElicitationCapability, ElicitResult, FormElicitationCapability

from aftersales.app import App
from aftersales.clock import now
from aftersales.domain.enums import ReasonCode, RefundMethod, TicketKind
from aftersales.services import payouts
from aftersales.testing import payout_page
from aftersales.web.app import create_web_app
from tests.support.apps import settings_for
from tests.support.clients import SUPPORT_BOT
from tests.support.elicitation import Action
from tests.support.free_ports import free_port
from tests.support.web import serving
from tests.support.worlds import ticket_request

ACCOUNT = "GB82 WEST 1234 5698 7654 32"  # a valid IBAN, searched for wherever the flow leaves a trace
CARD = "6217 0031 8840 2754"  # a valid mainland bank card number (its Luhn digit is right)
COD_ARGUMENTS: dict[str, Any] = {
    "line_no": 1,
    "kind": "refund_only",
    "reason_code": "no_longer_needed",
    "description": "The customer no longer needs it",
    "idempotency_key": "cod-refund-0001",
}


def opened_page(app: App, order_id: str, key: str, age: timedelta = timedelta(0)) -> str:
    """The link of a bank-account page opened for a bank-transfer call under `key`, `age` ago (the service's way)."""
    request = ticket_request(
        order_id,
        key,
        COD_ARGUMENTS["description"],
        kind=TicketKind.REFUND_ONLY,
        reason=ReasonCode.NO_LONGER_NEEDED,
        refund_method=RefundMethod.BANK_TRANSFER,
    )
    base, ttl = app.settings.page_base_url, app.settings.payout_page_ttl
    page = payouts.open_page(
        app.uow(write=True), SUPPORT_BOT, request, None, now() - age, ttl, lambda token: f"{base}/payout/{token}"
    )
    return page.url


@asynccontextmanager
async def page_client(app: App, server: Any) -> AsyncIterator[httpx2.AsyncClient]:
    """An HTTP client to the web app in this process (the page's links name the app's own host and port)."""
    web = create_web_app(app, server)
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=web), base_url=app.settings.page_base_url) as http:
        yield http


@contextmanager
def served_app(database_url: str, folder: Path, **changes: Any) -> Iterator[tuple[App, str]]:
    """An App on `database_url` served by uvicorn, its public URL where it listens (so its page links open there)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    app = App(settings_for(database_url, folder, public_url=url, **changes))
    try:
        with serving(create_web_app(app), port):
            yield app, url
    finally:
        app.close()


@dataclass
class PagePerson:
    """An elicitation callback: chooses bank_transfer (and confirms) in forms, fills in (or closes) the account page."""

    http: httpx2.AsyncClient
    action: Action = "accept"
    account: str = ACCOUNT
    urls: list[str] = field(default_factory=list)
    pages: list[payout_page.PageAnswer] = field(default_factory=list)

    async def __call__(self, _context: Any, params: Any) -> ElicitResult:
        if getattr(params, "mode", None) != "url":
            if "confirm" in params.requested_schema["properties"]:
                return ElicitResult(action="accept", content={"confirm": True})
            return ElicitResult(action="accept", content={"refund_method": "bank_transfer"})
        self.urls.append(params.url)
        if self.action != "accept":
            return ElicitResult(action=self.action)
        self.pages.append(await payout_page.submit(self.http, params.url, "Wei Zhang", self.account, "Barclays"))
        return ElicitResult(action="accept")


@contextmanager
def forms_only() -> Iterator[None]:
    """Clients connected inside declare form elicitation only (no URL mode), as many hosts do."""
    build = ClientSession._build_capabilities

    def without_urls(self: ClientSession, version: str) -> Any:
        capabilities = build(self, version)
        if capabilities.elicitation is None:
            return capabilities
        return capabilities.model_copy(update={"elicitation": ElicitationCapability(form=FormElicitationCapability())})

    ClientSession._build_capabilities = without_urls  # type: ignore[method-assign]
    try:
        yield
    finally:
        ClientSession._build_capabilities = build  # type: ignore[method-assign]

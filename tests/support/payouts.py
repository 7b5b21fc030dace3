"""Helpers for the bank-account flow: the page served in process, a person who fills it in, a form-only client."""

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import httpx2
from mcp.client.session import ClientSession
from mcp_types import ElicitationCapability, ElicitResult, FormElicitationCapability

from aftersales.app import App
from aftersales.clock import now
from aftersales.domain.creation import TicketRequest
from aftersales.domain.enums import ReasonCode, RefundMethod, TicketKind
from aftersales.services import payouts
from aftersales.testing import payout_page
from aftersales.web.app import create_web_app
from tests.support.clients import SUPPORT_BOT

ACCOUNT = "GB82 WEST 1234 5698 7654 32"  # a valid IBAN, searched for wherever the flow leaves a trace
CARD = "6222 0212 3456 7894"  # a valid mainland bank card number (its Luhn digit is right)
COD_ARGUMENTS = {
    "line_no": 1,
    "kind": "refund_only",
    "reason_code": "no_longer_needed",
    "description": "The customer no longer needs it",
    "idempotency_key": "cod-refund-0001",
}


def opened_page(app: App, order_id: str, key: str, age: timedelta = timedelta(0)) -> str:
    """The link of a bank-account page opened for a bank-transfer call under `key`, `age` ago (the service's way)."""
    request = TicketRequest(
        order_id=order_id,
        line_no=1,
        quantity=1,
        kind=TicketKind.REFUND_ONLY,
        reason=ReasonCode.NO_LONGER_NEEDED,
        description=COD_ARGUMENTS["description"],
        refund_method=RefundMethod.BANK_TRANSFER,
        quote_id=None,
        idempotency_key=key,
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


@dataclass
class PagePerson:
    """An elicitation callback: chooses bank_transfer in a form, and fills in (or closes) the bank-account page."""

    http: httpx2.AsyncClient
    action: str = "accept"
    account: str = ACCOUNT
    urls: list[str] = field(default_factory=list)
    pages: list[payout_page.PageAnswer] = field(default_factory=list)

    async def __call__(self, _context: Any, params: Any) -> ElicitResult:
        if getattr(params, "mode", None) != "url":
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

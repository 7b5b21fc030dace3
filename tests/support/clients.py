"""Connecting the real MCP client as a given caller: in memory, or over HTTP with a bearer token."""

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from aftersales.clock import now
from aftersales.domain.callers import ALL_SCOPES, Caller
from aftersales.mcp.caller import acting_as
from aftersales.security import tokens

SUPPORT_BOT = Caller("support-bot", frozenset(ALL_SCOPES))
# Two callers with every scope, for what one may not see or reuse of the other's.
ALICE = Caller("alice-bot", frozenset(ALL_SCOPES))
BOB = Caller("bob-bot", frozenset(ALL_SCOPES))
# Words that would show a client the server's insides: a validation library, a stack trace, a link to a library's docs.
LEAKS = ("pydantic", "validation error", "traceback", "http://", "https://")


def leaks(text: str) -> list[str]:
    """The LEAKS in `text`, whatever their case."""
    return [leak for leak in LEAKS if leak in text.lower()]


def bearer_token(
    keys: list[str],
    caller: str = "support-bot",
    scopes: Iterable[str] = ALL_SCOPES,
    ttl: timedelta = timedelta(hours=1),
) -> str:
    """A caller token signed with `keys`, as `aftersales token issue` makes one."""
    return tokens.issue(keys, caller, list(scopes), ttl, now())


@asynccontextmanager
async def connect(
    server: Any, mode: str = "auto", caller: Caller = SUPPORT_BOT, **options: Any
) -> AsyncIterator[Client]:
    """An in-memory client whose requests run as `caller`."""
    with acting_as(caller):
        async with Client(server, mode=mode, **options) as client:
            yield client


@asynccontextmanager
async def connect_http(
    url: str,
    token: str | None,
    mode: str = "auto",
    sent: list[Any] | None = None,
    on_response: Callable[[httpx2.Response], Awaitable[None]] | None = None,
    **options: Any,
) -> AsyncIterator[Client]:
    """A Streamable HTTP client sending `token` as its bearer token (keeping each request it sends in `sent`, and
    showing each HTTP response to `on_response`)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}

    async def keep(request: Any) -> None:
        if sent is not None:
            sent.append(request)

    hooks: dict[str, list[Any]] = {"request": [keep], "response": [on_response] if on_response else []}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30, event_hooks=hooks) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http), mode=mode, **options) as client,
    ):
        yield client

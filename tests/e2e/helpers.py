"""Connecting the real MCP client as a given caller: in memory, or over HTTP with a bearer token."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from aftersales.domain.callers import ALL_SCOPES, Caller
from aftersales.mcp.caller import acting_as

SUPPORT_BOT = Caller("support-bot", frozenset(ALL_SCOPES))


@asynccontextmanager
async def connect(
    server: Any, mode: str = "auto", caller: Caller = SUPPORT_BOT, **options: Any
) -> AsyncIterator[Client]:
    """An in-memory client whose requests run as `caller`."""
    with acting_as(caller):
        async with Client(server, mode=mode, **options) as client:
            yield client


@asynccontextmanager
async def connect_http(url: str, token: str | None, mode: str = "auto", **options: Any) -> AsyncIterator[Client]:
    """A Streamable HTTP client sending `token` as its bearer token."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http), mode=mode, **options) as client,
    ):
        yield client

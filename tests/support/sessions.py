"""Acting as any caller on protocol 2025-11-25 with raw HTTP: open, use and hold sessions one request at a time."""

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import httpx

from tests.support.clients import bearer_token

ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
}


class LegacyCallers:
    """Requests to one server's /mcp as callers whose tokens are signed with `keys` and carry `scopes`."""

    def __init__(
        self, url: str, keys: list[str], http: httpx.AsyncClient, scopes: Sequence[str] = ("tickets:read",)
    ) -> None:
        self.url, self.keys, self.http, self.scopes = f"{url}/mcp", keys, http, list(scopes)

    def headers(self, caller: str, session: str | None = None) -> dict[str, str]:
        token = bearer_token(self.keys, caller, self.scopes)
        session_headers = {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"} if session else {}
        return {**ACCEPT, "Authorization": f"Bearer {token}", **session_headers}

    async def initialize(self, caller: str, capabilities: dict[str, Any] | None = None) -> httpx.Response:
        """Open a session (declaring `capabilities`); on success it is initialized and has no request in flight."""
        request = INITIALIZE | {"params": INITIALIZE["params"] | {"capabilities": capabilities or {}}}
        response = await self.http.post(self.url, json=request, headers=self.headers(caller))
        if response.status_code == 200:
            initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            session = response.headers["mcp-session-id"]
            await self.http.post(self.url, json=initialized, headers=self.headers(caller, session))
        return response

    async def open_session(self, caller: str, capabilities: dict[str, Any] | None = None) -> str:
        """A new session's id."""
        response = await self.initialize(caller, capabilities)
        assert response.status_code == 200, response.text
        return response.headers["mcp-session-id"]

    async def ping(self, caller: str, session: str) -> int:
        """Use a session: 200 while it is open, 404 once it was closed."""
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        return (await self.http.post(self.url, json=ping, headers=self.headers(caller, session))).status_code

    @asynccontextmanager
    async def stream(self, caller: str, session: str) -> AsyncIterator[httpx.Response]:
        """Hold the session's standalone GET stream open: the session is busy, never idle."""
        headers = {**self.headers(caller, session), "Accept": "text/event-stream"}
        async with self.http.stream("GET", self.url, headers=headers) as response:
            assert response.status_code == 200
            yield response

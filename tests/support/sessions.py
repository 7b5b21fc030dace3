"""Acting as any caller on protocol 2025-11-25 with raw HTTP: open, use and hold sessions one request at a time."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

from tests.support.clients import bearer_token

ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
}


class LegacyCallers:
    """Requests to one server's /mcp as callers whose tokens are signed with `keys`."""

    def __init__(self, url: str, keys: list[str], http: httpx.AsyncClient) -> None:
        self.url, self.keys, self.http = f"{url}/mcp", keys, http

    def headers(self, caller: str, session: str | None = None) -> dict[str, str]:
        token = bearer_token(self.keys, caller, ["tickets:read"])
        session_headers = {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"} if session else {}
        return {**ACCEPT, "Authorization": f"Bearer {token}", **session_headers}

    async def initialize(self, caller: str) -> httpx.Response:
        """Open a session; on success it is initialized and has no request in flight."""
        response = await self.http.post(self.url, json=INITIALIZE, headers=self.headers(caller))
        if response.status_code == 200:
            initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            session = response.headers["mcp-session-id"]
            await self.http.post(self.url, json=initialized, headers=self.headers(caller, session))
        return response

    async def open_session(self, caller: str) -> str:
        """A new session's id."""
        response = await self.initialize(caller)
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

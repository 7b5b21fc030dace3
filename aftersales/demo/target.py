"""Another running aftersales server the page's columns talk to instead of the demo's own, with a token for it.

The presenter gives its MCP URL and a bearer token; the demo checks both by listing the server's tools with the real
client before it keeps them. The token stays in the demo server: the page, the events and exports never carry it.
"""

from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

from aftersales import __version__
from aftersales.demo.worlds import Endpoint

PROBE_SECONDS = 10.0
MAX_TOKEN = 4096  # characters: a bearer token is a few hundred


class TargetRefused(ValueError):
    """The URL or token cannot be used; the message says which and why."""


@dataclass(frozen=True)
class Target:
    """Where the columns connect, as the presenter gave it, and what the server said about itself."""

    url: str
    token: str
    server: str
    tools: int

    def endpoint(self) -> Endpoint:
        """A column's endpoint on this server: its own data and keys, so its requestState stays sealed to us."""
        return Endpoint(self.url, self.token, "the token's caller", "", [], timedelta(0), remote=True)

    def public(self) -> dict[str, Any]:
        """What the page may show (never the token)."""
        return {"url": self.url, "server": self.server, "tools": self.tools}


def checked_url(url: Any) -> str:
    """The MCP URL as given, when it is an http(s) URL with a host."""
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc or len(url) > 2000:
        raise TargetRefused(
            f"url {str(url)[:80]!r} is not an http:// or https:// address of an MCP endpoint "
            "(for example http://127.0.0.1:8000/mcp)."
        )
    return str(url).strip()


async def connect(url: Any, token: Any) -> Target:
    """Check the URL and token by listing the server's tools; the Target to keep, or TargetRefused saying why."""
    address = checked_url(url)
    if not isinstance(token, str) or not token.strip() or len(token) > MAX_TOKEN:
        raise TargetRefused(f"token must be the bearer token for that server (1 to {MAX_TOKEN} characters).")
    statuses: list[int] = []

    async def seen(response: httpx2.Response) -> None:
        statuses.append(response.status_code)

    try:
        async with (
            httpx2.AsyncClient(
                headers={"Authorization": f"Bearer {token.strip()}"},
                timeout=PROBE_SECONDS,
                event_hooks={"response": [seen]},
            ) as http,
            Client(
                streamable_http_client(address, http_client=http),
                client_info=Implementation(name="aftersales-demo", version=__version__),
            ) as client,
        ):
            listed = await client.list_tools()
            info = client.server_info
    except Exception as error:  # what went wrong is for the presenter, in words
        failed = next((status for status in reversed(statuses) if status >= 400), None)
        if failed in (401, 403):
            refused = f"{address} refused the token (HTTP {failed}): give a token that server issued."
            raise TargetRefused(refused) from error
        if failed is not None:
            wrong = f"{address} answered HTTP {failed}: is it the server's MCP endpoint (…/mcp)?"
            raise TargetRefused(wrong) from error
        raise TargetRefused(f"{address} did not answer as an MCP server ({type(error).__name__}).") from error
    name = f"{info.name} {info.version}" if info is not None else "an MCP server"
    return Target(address, token.strip(), name, len(listed.tools))

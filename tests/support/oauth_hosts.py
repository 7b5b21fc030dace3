"""Hosts that do the MCP authorization flow: the SDK's own OAuth providers, wired to the tests' authorization server.

A person host uses OAuthClientProvider (authorization code with PKCE): its browser step is the authorization
server's `authorize`, which signs in and allows. A machine host uses the SDK's client-credentials extension. Either
way the MCP client is the SDK's, over Streamable HTTP, and every HTTP request it makes is recorded.
"""

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import parse_qs, urlparse

import anyio
import httpx2
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from tests.support.oauth_server import AuthorizationServer


class MemoryTokens:
    """The SDK's TokenStorage, in memory: what a host would keep in its keychain."""

    def __init__(self, client: OAuthClientInformationFull | None = None) -> None:
        self.tokens: OAuthToken | None = None
        self.client = client

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def person_host(
    mcp_url: str, issuer: AuthorizationServer, preregistered: bool = False, allowing: Sequence[set[str]] = ()
) -> OAuthClientProvider:
    """A host acting for the issuer's person: it registers itself (RFC 7591), or uses the preregistered client.

    At the n-th authorization the person allows only the scopes `allowing[n]`, and everything asked after those.
    """
    metadata = OAuthClientMetadata(
        redirect_uris=[issuer.redirect_uri],  # type: ignore[list-item]  # pydantic parses the string
        token_endpoint_auth_method="none",  # a public client: PKCE instead of a secret
        client_name="aftersales e2e host",
    )
    known = OAuthClientInformationFull(
        client_id=issuer.public_client_id,
        redirect_uris=[issuer.redirect_uri],  # type: ignore[list-item]
        token_endpoint_auth_method="none",
        issuer=issuer.issuer,
    )
    asked: list[str] = []
    choices = list(allowing)

    async def open_browser(authorization_url: str) -> None:
        asked.append(authorization_url)

    async def wait_for_redirect() -> AuthorizationCodeResult:
        allowed = choices.pop(0) if choices else None
        back = parse_qs(urlparse(await anyio.to_thread.run_sync(issuer.authorize, asked.pop(), allowed)).query)
        return AuthorizationCodeResult(code=back["code"][0], state=back["state"][0], iss=back.get("iss", [None])[0])

    storage = MemoryTokens(known if preregistered else None)
    return OAuthClientProvider(mcp_url, metadata, storage, open_browser, wait_for_redirect)


def machine_host(mcp_url: str, issuer: AuthorizationServer) -> ClientCredentialsOAuthProvider:
    """A deployed agent with the machine client's credentials (the SDK's client-credentials extension)."""
    machine = issuer.machine
    return ClientCredentialsOAuthProvider(
        mcp_url, MemoryTokens(), machine.client_id, machine.client_secret, issuer=issuer.issuer
    )


@asynccontextmanager
async def connect_oauth(
    mcp_url: str, auth: httpx2.Auth, sent: list[str], mode: str = "auto", **options: Any
) -> AsyncIterator[Client]:
    """The SDK's MCP client over Streamable HTTP with `auth`; each exchange is logged in `sent` as "GET URL 200"."""

    async def record(response: httpx2.Response) -> None:
        request = response.request
        sent.append(f"{request.method} {request.url.copy_with(query=None)} {response.status_code}")

    async with (
        httpx2.AsyncClient(auth=auth, timeout=30, event_hooks={"response": [record]}) as http,
        Client(streamable_http_client(mcp_url, http_client=http), mode=mode, **options) as client,
    ):
        yield client

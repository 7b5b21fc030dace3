"""The issuer's signature keys: discovered from its metadata, fetched (httpx2, off no thread: never blocking the
event loop), cached, and fetched again when a token names a key id the cache lacks, at most once per `cooldown`.

While the issuer cannot be reached the cached keys keep working; only a token that needs keys the cache lacks is
answered "try again later" (KeysUnavailable), never refused as forged for want of a fetch.
"""

import time
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import anyio
import httpx2

from aftersales.security.access_tokens import IssuerKey, UnknownKey, key_set, pick

TIMEOUT = 5.0  # seconds for each request to the issuer
# RFC 8414 first, then OpenID Connect Discovery, as the MCP authorization specification has clients try them.
METADATA = ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration")


class IssuerUnreachable(Exception):
    """The issuer's metadata or keys could not be read; the message names the issuer and what failed."""


class KeysUnavailable(Exception):
    """A token needs keys the cache lacks and they cannot be fetched now; `retry_after` seconds is worth waiting."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class IssuerKeys:
    """One issuer's keys, shared by every request of a process."""

    def __init__(self, issuer: str, cooldown: timedelta, transport: httpx2.AsyncBaseTransport | None = None) -> None:
        """`transport`: how to reach the issuer (tests pass a mock); `cooldown`: the least time between fetches."""
        self.issuer, self._cooldown, self._transport = issuer, cooldown.total_seconds(), transport
        self._keys: dict[str, IssuerKey] = {}
        self._attempted: float | None = None  # time.monotonic() of the last fetch, None before the first
        self._failed = False  # whether that fetch failed
        self._lock: anyio.Lock | None = None

    async def load(self) -> None:
        """Fetch the metadata and the keys now; IssuerUnreachable when either cannot be read."""
        self._attempted = time.monotonic()
        try:
            self._keys = await self._fetch()
        except IssuerUnreachable:
            self._failed = True
            raise
        self._failed = False

    def holds(self, key: IssuerKey) -> bool:
        """Whether `key` is still one of the issuer's keys as last fetched (a refresh may have dropped it)."""
        return any(held is key for held in self._keys.values())

    async def key(self, kid: str | None) -> IssuerKey:
        """The key a token names, fetching the keys again when the cache lacks it and the cooldown allows."""
        try:
            return pick(self._keys, kid)
        except UnknownKey:
            if self._lock is None:
                self._lock = anyio.Lock()
            async with self._lock:  # concurrent requests with a new key id wait for one fetch, not one each
                try:
                    return pick(self._keys, kid)  # another request fetched them meanwhile
                except UnknownKey:
                    await self._refresh()
            return pick(self._keys, kid)  # still unknown after a fresh fetch: refused

    async def _refresh(self) -> None:
        """Fetch again if the cooldown has passed since the last fetch; KeysUnavailable when that cannot be done."""
        waited = None if self._attempted is None else time.monotonic() - self._attempted
        if waited is not None and waited < self._cooldown:
            # Not fetched again so soon (a stream of made-up key ids must not become a stream of fetches); the key
            # may be a new one of the issuer's all the same, so the token is not refused as forged: asked again.
            reason = "could not be reached just now" if self._failed else "was asked for its keys moments ago"
            raise KeysUnavailable(
                f"the issuer {self.issuer} {reason}, and the keys this server holds lack the token's key id; its "
                f"keys are fetched again at most every {self._cooldown:g} seconds",
                max(1, round(self._cooldown - waited)),
            )
        try:
            await self.load()
        except IssuerUnreachable as problem:
            raise KeysUnavailable(str(problem), max(1, round(self._cooldown))) from None

    async def _fetch(self) -> dict[str, IssuerKey]:
        """The metadata (RFC 8414, else OpenID Connect Discovery), then the JWKS at its jwks_uri."""
        base = self.issuer.rstrip("/")
        try:
            async with httpx2.AsyncClient(transport=self._transport, timeout=TIMEOUT) as http:
                metadata = None
                for path in METADATA:
                    answer = await http.get(base + path)
                    if answer.status_code == 200:
                        metadata = _json_object(answer, base + path)
                        break
                if metadata is None:
                    raise IssuerUnreachable(
                        f"the issuer {self.issuer} publishes no metadata at {base}{METADATA[0]} or {base}{METADATA[1]}"
                    )
                if metadata.get("issuer") != self.issuer:
                    raise IssuerUnreachable(
                        f"the metadata at {self.issuer} names the issuer {metadata.get('issuer')!r}, not "
                        f"{self.issuer}; set AFTERSALES_OAUTH_ISSUER to the issuer exactly as it names itself"
                    )
                uri = metadata.get("jwks_uri")
                if not isinstance(uri, str):
                    raise IssuerUnreachable(f"the metadata of the issuer {self.issuer} has no jwks_uri")
                answer = await http.get(uri)
                if answer.status_code != 200:
                    raise IssuerUnreachable(f"the issuer's keys at {uri} answered HTTP {answer.status_code}")
                keys = key_set(_json_object(answer, uri))
        except httpx2.TimeoutException:
            raise IssuerUnreachable(f"the issuer {self.issuer} did not answer within {TIMEOUT:g} seconds") from None
        except httpx2.HTTPError:
            raise IssuerUnreachable(f"the issuer {self.issuer} cannot be reached") from None
        if not keys:
            raise IssuerUnreachable(f"the issuer {self.issuer} publishes no asymmetric signature key at {uri}")
        return keys


def _json_object(answer: httpx2.Response, url: str) -> Mapping[str, Any]:
    """The JSON object an answer holds; IssuerUnreachable for anything else."""
    try:
        body = answer.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise IssuerUnreachable(f"{url} did not answer with a JSON object")
    return body

"""A reverse proxy that adds headers to every request: it gives a client that cannot send a bearer token one.

The official conformance suite has no option for an Authorization header, and the server has no unauthenticated
mode (nor should it), so the suite talks to this proxy and the proxy forwards each request with the token added.
Everything else passes through untouched, the Host and Origin headers included, so the server's own checks
(DNS-rebinding protection, sessions, protocol headers) see exactly what the client sent. Response bodies stream,
so server-sent event streams reach the client as the server writes them. An optional observer is handed each
POST's request body and complete response, so a test can check what the server answered.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import anyio
import httpx
from starlette.types import Message, Receive, Scope, Send

from tests.support.web import serving

# Headers that describe one hop, not the message (RFC 9110 section 7.6.1), plus those the proxy's server sets.
HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"te",
        b"trailer",
        b"transfer-encoding",
        b"upgrade",
        b"date",
        b"server",
    }
)


# Called with a POST's request body, the response's content type and the response body.
Observer = Callable[[bytes, str, bytes], None]


class HeaderProxy:
    """An ASGI app that forwards every HTTP request to `upstream` with `headers` set."""

    def __init__(self, upstream: str, headers: dict[str, str], observe: Observer | None = None) -> None:
        self.upstream = upstream.rstrip("/")
        self.added = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()]
        self.observe = observe
        self.client: httpx.AsyncClient | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._forward(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                # No timeouts: server-sent event streams stay open as long as the client keeps them.
                self.client = httpx.AsyncClient(timeout=None)
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self.client is not None:
                    await self.client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _forward(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert self.client is not None, "the proxy forwards only after its lifespan started"
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
        replaced = {name for name, _ in self.added}
        headers = [(n, v) for n, v in scope["headers"] if n not in HOP_BY_HOP and n not in replaced] + self.added
        url = self.upstream + scope["raw_path"].decode("latin-1")
        if scope["query_string"]:
            url += "?" + scope["query_string"].decode("latin-1")
        request = self.client.build_request(scope["method"], url, headers=headers, content=body)
        response = await self.client.send(request, stream=True)
        # Only POST responses end on their own; a GET stream stays open as long as the client listens.
        copy = bytearray() if self.observe and scope["method"] == "POST" else None
        try:
            async with anyio.create_task_group() as group:
                # A client that goes away (it closed a stream) ends the upstream request too.
                group.start_soon(_cancel_on_disconnect, receive, group.cancel_scope)
                await _relay(response, send, copy)
                group.cancel_scope.cancel()
        finally:
            await response.aclose()
        if self.observe and copy is not None:
            self.observe(body, response.headers.get("content-type", ""), bytes(copy))


async def _relay(response: httpx.Response, send: Send, copy: bytearray | None) -> None:
    """Send the upstream response's status, headers and raw body chunks as they arrive (and into `copy`)."""
    headers = [(n, v) for n, v in response.headers.raw if n.lower() not in HOP_BY_HOP]
    await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
    async for chunk in response.aiter_raw():
        if copy is not None:
            copy.extend(chunk)
        await send({"type": "http.response.body", "body": chunk, "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _cancel_on_disconnect(receive: Receive, scope: anyio.CancelScope) -> None:
    message: Message = {"type": ""}
    while message["type"] != "http.disconnect":
        message = await receive()
    scope.cancel()


@contextmanager
def running(upstream: str, headers: dict[str, str], observe: Observer | None = None) -> Iterator[str]:
    """Serve a HeaderProxy for `upstream` on a free loopback port; yield its base URL."""
    with serving(HeaderProxy(upstream, headers, observe)) as url:
        yield url

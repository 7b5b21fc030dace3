"""Read each MCP request body whole before the SDK sees it, so a client that leaves mid-body costs one log line."""

import logging

from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger(__name__)


class WholeBodies:
    """ASGI middleware: buffer POST bodies under `prefix`; drop the request quietly if the client disconnects first.

    The SDK reads the body itself and logs a traceback (or lets the exception reach uvicorn) when the client goes
    away half-way. Nothing has been done for such a request and nobody is left to answer, so it is logged at INFO.
    Bodies over `limit` are passed on unread for the SDK to refuse with 413.
    """

    def __init__(self, app: ASGIApp, prefix: str = "/mcp", limit: int = DEFAULT_MAX_REQUEST_BODY_SIZE) -> None:
        self.app, self.prefix, self.limit = app, prefix, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Buffer, then replay the body to the app; later receive() calls reach the client as usual."""
        if scope["type"] != "http" or scope["method"] != "POST" or not scope["path"].startswith(self.prefix):
            await self.app(scope, receive, send)
            return
        body, complete = bytearray(), False
        while not complete and len(body) <= self.limit:
            message = await receive()
            if message["type"] == "http.disconnect":
                client = scope.get("client") or ("unknown", 0)
                log.info("Client %s:%s left before sending the whole request body; nothing was done", *client)
                return
            body.extend(message.get("body", b""))
            complete = not message.get("more_body", False)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": bytes(body), "more_body": not complete}

        await self.app(scope, replay, send)

"""The wire as it passes: an HTTP transport that records every JSON-RPC message a real MCP client exchanges.

Requests are recorded as they leave (with ready-to-run curl and Python snippets), responses as they arrive: a JSON
body whole, a server-sent event stream event by event, so a 2025-11-25 `elicitation/create` shows while its
`tools/call` is still open, nested under that call. A requestState is recorded as sealed facts, not as its bytes.
"""

import codecs
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2

from aftersales.demo.snippets import curl, python

Record = Callable[[dict[str, Any]], int]  # records an entry, returns its number
SHOWN_HEADERS = ("mcp-session-id", "mcp-protocol-version", "mcp-method", "mcp-name")


class Tap(httpx2.AsyncBaseTransport):
    """Pass requests to a real HTTP transport, handing each JSON-RPC message on the way to `record`."""

    def __init__(self, record: Record, describe_state: Callable[[str], dict[str, Any]]) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.record, self.describe_state = record, describe_state
        self.server_requests: dict[Any, Any] = {}  # a server request's id -> the client call whose stream it came on
        self.last_state: str | None = None

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Record what goes out, send it, and record what comes back as it is read."""
        body = request.content
        sent = _documents(body)
        headers = {name: value for name, value in request.headers.items() if name.lower() in SHOWN_HEADERS}
        numbers = [self._outgoing(request, body, message, headers) for message in sent]
        if not sent:
            numbers = [self._emit({"kind": "http", "direction": "out", "http": request.method, "headers": headers})]
        response = await self.inner.handle_async_request(request)
        content_type = response.headers.get("content-type", "")
        for number in numbers:
            self._emit({"kind": "status", "of": number, "status": response.status_code, "content_type": content_type})
        call = next((m.get("id") for m in sent if "method" in m and "id" in m), None)
        events = "event-stream" in content_type
        stream = _Recorded(response.stream, lambda message: self._incoming(message, call), events)
        return httpx2.Response(
            response.status_code, headers=response.headers, stream=stream, extensions=response.extensions
        )

    async def aclose(self) -> None:
        await self.inner.aclose()

    def _outgoing(self, request: httpx2.Request, body: bytes, message: dict[str, Any], headers: dict[str, str]) -> int:
        """Record one message the client sends; requests get their snippets."""
        entry: dict[str, Any] = {"kind": "message", "direction": "out", "http": request.method, "headers": headers}
        if "method" in message:
            entry["call"] = message.get("id")
        else:  # the client's answer to a server request: it belongs to the call that request came with
            entry["call"] = self.server_requests.get(message.get("id"))
            entry["nested"] = entry["call"] is not None
        params = message.get("params") if isinstance(message.get("params"), dict) else None
        state = params.get("requestState") if params else None
        if isinstance(state, str):
            echo = "unchanged" if state == self.last_state else "changed"
            entry["sealed"] = {"bytes": len(state.encode()), "echo": echo}
            message = message | {"params": params | {"requestState": _placeholder(state)}}
        if "method" in message and "id" in message:
            entry["snippets"] = {"curl": curl(request, body), "python": python(request, body)}
        return self._emit(entry | {"message": message})

    def _incoming(self, message: dict[str, Any], call: Any) -> None:
        """Record one message the server sends, tied to the call whose response carried it."""
        entry: dict[str, Any] = {"kind": "message", "direction": "in", "call": call}
        if "method" in message and "id" in message and call is not None:
            self.server_requests[message["id"]] = call
            entry["nested"] = True
        result = message.get("result")
        state = result.get("requestState") if isinstance(result, dict) else None
        if isinstance(state, str):
            self.last_state = state
            entry["sealed"] = self.describe_state(state)
            message = message | {"result": result | {"requestState": _placeholder(state)}}
        self._emit(entry | {"message": message})

    def _emit(self, entry: dict[str, Any]) -> int:
        return self.record(entry)


class _Recorded(httpx2.AsyncByteStream):
    """A response body that hands each complete JSON-RPC message to `found` while the client reads it."""

    def __init__(self, inner: Any, found: Callable[[dict[str, Any]], None], events: bool) -> None:
        self.inner, self.found, self.events = inner, found, events
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.buffer = ""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.inner:
            self._feed(self.decoder.decode(chunk))
            yield chunk
        self._feed(self.decoder.decode(b"", final=True), final=True)

    async def aclose(self) -> None:
        await self.inner.aclose()

    def _feed(self, text: str, final: bool = False) -> None:
        self.buffer += text.replace("\r\n", "\n").replace("\r", "\n")
        if not self.events:
            if final:
                for message in _documents(self.buffer.encode()):
                    self.found(message)
                self.buffer = ""
            return
        *complete, self.buffer = self.buffer.split("\n\n")
        for event in complete:
            data = "\n".join(line[5:].lstrip(" ") for line in event.split("\n") if line.startswith("data:"))
            for message in _documents(data.encode()):
                self.found(message)


def _documents(body: bytes) -> list[dict[str, Any]]:
    """The JSON-RPC messages in a body (one message or a batch); none when it is empty or not JSON."""
    try:
        parsed = json.loads(body) if body.strip() else []
    except ValueError:
        return []
    return [m for m in (parsed if isinstance(parsed, list) else [parsed]) if isinstance(m, dict)]


def _placeholder(state: str) -> str:
    """What the wire pane shows instead of a requestState's bytes."""
    return f"<sealed: {len(state.encode())} bytes>"

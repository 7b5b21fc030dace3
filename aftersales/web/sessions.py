"""Sessions of protocol 2025-11-25: the SDK's session manager, capped per caller, whose streams close on shutdown.

The SDK caps sessions per process (`max_sessions`), so one caller that keeps opening sessions locks every other
caller out. Here each caller (the bearer token's caller id, which the SDK already records as the session's owner)
holds at most `per_caller` sessions. A caller at its cap that opens another loses its oldest idle session, the one
it has not used for longest (its next request there answers 404 and the client starts a new session, as the
specification tells it to). Only when none of its sessions is idle (each has a request in flight or an open
stream, so closing one would cut off work in progress) is the new one refused, with HTTP 429 and a message.
"""

import logging
import math
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
from mcp.server.lowlevel.server import Server
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.subscriptions import ListenHandler
from mcp_types import INVALID_REQUEST, ErrorData, JSONRPCError
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from aftersales.mcp.caller import caller_id
from aftersales.web.resumption import RETRY_MS, SessionEvents, StreamEvents

log = logging.getLogger(__name__)


class TooManySessions(Exception):
    """The caller is at its session cap and every one of its sessions is busy."""

    def __init__(self, caller: str, limit: int) -> None:
        super().__init__(
            f"Caller {caller!r} already has {limit} open sessions and every one is busy (a request in flight or an "
            "open stream), so none was closed to make room. End a session you no longer need (HTTP DELETE with its "
            "Mcp-Session-Id) or let one finish, then initialize again; the operator sets the limit with "
            "AFTERSALES_SESSIONS_PER_CALLER."
        )

    def response(self) -> Response:
        """HTTP 429 with a JSON-RPC error body, the way the SDK answers its own session refusals."""
        body = JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=INVALID_REQUEST, message=str(self)))
        return Response(body.model_dump_json(by_alias=True), status_code=429, media_type="application/json")


def sessions_need_one_process(processes: int) -> Response:
    """HTTP 400 for a 2025-11-25 session opened on a server of several processes, with the way out."""
    message = (
        f"This server runs {processes} worker processes on one port, and a protocol 2025-11-25 session lives in the "
        "memory of one of them: the client's next connection may reach another process, which does not know the "
        "session. Connect with protocol 2026-07-28, whose requests are self-contained, or ask the operator to serve "
        "2025-11-25 clients with one process (--workers 1, AFTERSALES_WORKERS=1)."
    )
    body = JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=INVALID_REQUEST, message=message))
    return Response(body.model_dump_json(by_alias=True), status_code=400, media_type="application/json")


class CallerSessionManager(StreamableHTTPSessionManager):
    """StreamableHTTPSessionManager with at most `per_caller` sessions for each caller.

    With `processes` > 1 (`serve --workers N`) it opens no session at all: connections are spread over processes
    by the kernel, so a session's later requests would miss it (measured: every 2025-11-25 client failed).
    """

    def __init__(
        self, app: Server[Any], *, per_caller: int, events: StreamEvents, processes: int = 1, **options: Any
    ) -> None:
        super().__init__(app, retry_interval=RETRY_MS, **options)
        if per_caller < 1:
            raise ValueError("per_caller must be at least 1")
        self.per_caller, self.processes, self.events = per_caller, processes, events
        self._session_events: dict[str, SessionEvents] = {}

    async def _handle_stateful_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.processes > 1 and not any(name == b"mcp-session-id" for name, _ in scope["headers"]):
            await sessions_need_one_process(self.processes)(scope, receive, send)
            return
        try:
            await super()._handle_stateful_request(scope, receive, send)
        except TooManySessions as refusal:  # raised by _admit_session, before anything was sent
            log.warning("Refused a new session: %s", refusal)
            await refusal.response()(scope, receive, send)

    def _admit_session(self, requestor: AuthorizationContext | None) -> StreamableHTTPServerTransport | None:
        # Runs under the SDK's session-creation lock and never awaits, so counting and evicting cannot race.
        if requestor is not None:
            owned = [session for session, owner in self._session_owners.items() if owner == requestor]
            if len(owned) >= self.per_caller:
                caller = caller_id(requestor["subject"], requestor["client_id"])
                self._evict(self._oldest_idle(owned, caller), caller)
        # The SDK gives every new transport the manager's `event_store`: set to a fresh one each time, each session
        # has its own (one store shared by sessions would mix their streams, which are named after request ids).
        store = self.event_store = self.events.session()
        transport = super()._admit_session(requestor)
        if transport is not None and transport.mcp_session_id is not None:
            self._session_events[transport.mcp_session_id] = store
        return transport

    async def _discard_session(self, session_id: str, transport: StreamableHTTPServerTransport) -> None:
        # Every way a session ends (DELETE, idle timeout, eviction, a failed opening request) comes through here.
        store = self._session_events.pop(session_id, None)
        if store is not None:
            store.clear()
        await super()._discard_session(session_id, transport)

    def _oldest_idle(self, sessions: list[str], caller: str) -> str:
        """The session idle longest: its idle deadline is the earliest (a busy session has none)."""
        deadlines: dict[str, float] = {}
        for session in sessions:
            idle_scope = self._server_instances[session].idle_scope
            if idle_scope is not None and idle_scope.deadline != math.inf:
                deadlines[session] = idle_scope.deadline
        if not deadlines:
            raise TooManySessions(caller, self.per_caller)
        return min(deadlines, key=deadlines.__getitem__)

    def _evict(self, session: str, caller: str) -> None:
        """Forget the session now (it answers 404 from here on) and end it the way an idle timeout would."""
        transport = self._server_instances.pop(session)
        self._session_owners.pop(session, None)
        assert transport.idle_scope is not None  # only sessions with an idle deadline are chosen
        transport.idle_scope.cancel()
        log.info("Closed session %s, the oldest idle one of caller %r, to open a new one", session, caller)

    def close_streams(self) -> None:
        """End every open stream gracefully: 2026-07-28 listen streams and 2025-11-25 standalone GET streams."""
        listen = self.app.get_request_handler("subscriptions/listen")
        if listen is not None and isinstance(listen.handler, ListenHandler):
            listen.handler.close()
        for transport in list(self._server_instances.values()):
            transport.close_standalone_sse_stream()

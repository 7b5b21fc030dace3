"""The events of 2025-11-25 streams, kept in memory so a client whose stream dropped can resume it.

A 2025-11-25 POST answers on an SSE stream that opens with a priming event (an id, no data, and the `retry` the
client waits before reconnecting); every message after it has an id too. A client that loses the stream mid-call
(in the middle of a question, say) reconnects with GET and `Last-Event-ID`, and the SDK replays what it missed
from this store, then carries on with the rest of the call.

Each session has a store of its own. The SDK names a stream after the JSON-RPC id of its request, and every
session numbers its requests from the start, so one store shared by sessions would replay one session's stream
into another; here an id another session was given is simply not found (and the SDK has already refused a
session id that belongs to another caller). Memory is bounded three ways: events per stream, bytes per session,
and bytes in the whole process, each dropping the oldest first; and no event outlives `max_age`. An event that is
gone cannot be replayed: the client's call fails and it calls again, with the same idempotency key.

The store lives in one process: a reconnect must reach the replica that holds the session, which a 2025-11-25
deployment already ensures by keeping requests sticky by `Mcp-Session-Id`.
"""

import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp_types import JSONRPCError, JSONRPCMessage, JSONRPCResponse

RETRY_MS = 1000  # what a priming event tells the client to wait before it reconnects
PER_STREAM = 100  # events: a call's stream holds its priming event, its questions and its result
PER_SESSION_BYTES = 1 << 20
TOTAL_BYTES = 64 << 20


@dataclass(eq=False)
class _Event:
    """One stored event; `message` is None for a priming event."""

    log: "SessionEvents"
    id: EventId
    stream: StreamId
    message: JSONRPCMessage | None
    size: int
    at: float


@dataclass
class StreamEvents:
    """Every session's events in this process, oldest first, within the process-wide bounds."""

    max_age: float  # seconds
    total_bytes: int = TOTAL_BYTES
    per_session_bytes: int = PER_SESSION_BYTES
    per_stream: int = PER_STREAM
    clock: Callable[[], float] = time.monotonic
    _events: OrderedDict[_Event, None] = field(default_factory=OrderedDict)
    _bytes: int = 0

    def session(self) -> "SessionEvents":
        """A new, empty store for one session."""
        return SessionEvents(self)

    @property
    def size(self) -> int:
        """Bytes held now, over every session."""
        return self._bytes

    def _add(self, event: _Event) -> None:
        self._events[event] = None
        self._bytes += event.size
        self._expire()

    def _expire(self) -> None:
        """Drop the oldest events while the process is over its bytes or they are over their age."""
        oldest_kept = self.clock() - self.max_age
        while self._events:
            oldest = next(iter(self._events))
            if self._bytes <= self.total_bytes and oldest.at >= oldest_kept:
                return
            oldest.log._drop(oldest)

    def _remove(self, event: _Event) -> None:
        del self._events[event]
        self._bytes -= event.size


class SessionEvents(EventStore):
    """The SDK's event store for one session; its event ids mean nothing in another session."""

    def __init__(self, events: StreamEvents) -> None:
        self._all = events
        self._by_id: dict[EventId, _Event] = {}
        self._order: OrderedDict[_Event, None] = OrderedDict()
        self._streams: dict[StreamId, deque[_Event]] = {}
        self._bytes = 0
        self._counter = 0
        self._prefix = secrets.token_hex(4)  # so an id given in another session is not found here

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        """Keep one event of a stream; the oldest ones go when a bound is passed."""
        self._counter += 1
        size = 64 if message is None else 64 + len(message.model_dump_json(by_alias=True, exclude_unset=True))
        event = _Event(self, f"{self._prefix}-{self._counter}", stream_id, message, size, self._all.clock())
        stream = self._streams.setdefault(stream_id, deque())
        stream.append(event)
        self._by_id[event.id] = event
        self._order[event] = None
        self._bytes += size
        while len(stream) > self._all.per_stream:
            self._drop(stream[0])
        while self._bytes > self._all.per_session_bytes:
            self._drop(next(iter(self._order)))
        if event.id in self._by_id:
            self._all._add(event)
        return event.id

    async def replay_events_after(self, last_event_id: EventId, send_callback: EventCallback) -> StreamId | None:
        """Send the events of the stream that came after `last_event_id`, and say whether the SDK should wait for
        more: a stream that ended with its response has nothing more to come, so it gets None and closes."""
        self._all._expire()
        last = self._by_id.get(last_event_id)
        if last is None:
            return None
        stream = list(self._streams[last.stream])
        for event in stream[stream.index(last) + 1 :]:
            if event.message is not None:
                await send_callback(EventMessage(event.message, event.id))
        return None if _ends(stream[-1]) else last.stream

    def clear(self) -> None:
        """Forget every event of the session (it ended)."""
        for event in list(self._order):
            self._drop(event)

    def _drop(self, event: _Event) -> None:
        # Every bound drops the oldest event of its own order, and all orders follow the order of arrival, so
        # the event dropped is always the oldest of its stream.
        stream = self._streams[event.stream]
        stream.popleft()
        if not stream:
            del self._streams[event.stream]
        del self._by_id[event.id]
        del self._order[event]
        self._bytes -= event.size
        if event in self._all._events:
            self._all._remove(event)


def _ends(event: _Event) -> bool:
    """Whether the event is the response that ends its request's stream."""
    message = event.message
    return isinstance(message, JSONRPCResponse | JSONRPCError) and str(message.id) == event.stream

"""The in-memory event stores of 2025-11-25 streams: replay after an id, one store per session, and every bound."""

from typing import Any

import pytest
from mcp.server.lowlevel.server import Server
from mcp.server.streamable_http import EventMessage
from mcp_types import JSONRPCMessage, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

from aftersales.web.resumption import SessionEvents, StreamEvents
from aftersales.web.sessions import CallerSessionManager

pytestmark = pytest.mark.anyio


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def question(number: int) -> JSONRPCRequest:
    return JSONRPCRequest(jsonrpc="2.0", id=number, method="elicitation/create", params={"message": "?"})


def progress(text: str = "") -> JSONRPCNotification:
    return JSONRPCNotification(jsonrpc="2.0", method="notifications/progress", params={"note": text})


def result(request_id: int) -> JSONRPCResponse:
    return JSONRPCResponse(jsonrpc="2.0", id=request_id, result={"content": []})


async def replay(store: SessionEvents, last_event_id: str) -> tuple[list[Any], str | None]:
    """What a replay after `last_event_id` sends (messages, and ids alongside), and the stream it says goes on."""
    sent: list[EventMessage] = []

    async def send(event: EventMessage) -> None:
        sent.append(event)

    stream = await store.replay_events_after(last_event_id, send)
    return [event.message for event in sent], stream


async def stored(store: SessionEvents, stream: str, *messages: JSONRPCMessage | None) -> list[str]:
    return [await store.store_event(stream, message) for message in messages]


async def test_a_replay_sends_what_came_after_the_last_event_seen_and_says_the_running_call_goes_on():
    store = StreamEvents(max_age=600).session()
    priming, asked = await stored(store, "7", None, question(1))
    await stored(store, "8", None, progress("another call's"))
    assert await replay(store, priming) == ([question(1)], "7")
    assert await replay(store, asked) == ([], "7")


async def test_a_stream_that_ended_with_its_response_is_replayed_to_its_end_and_nothing_waits_for_more():
    store = StreamEvents(max_age=600).session()
    priming, *_ = await stored(store, "7", None, question(1), result(7))
    assert await replay(store, priming) == ([question(1), result(7)], None)


async def test_an_event_id_of_another_session_or_one_never_given_replays_nothing():
    events = StreamEvents(max_age=600)
    mine, theirs = events.session(), events.session()
    (their_priming, _) = await stored(theirs, "7", None, question(1))
    await stored(mine, "7", None, question(1))
    for unknown in (their_priming, "1", "", "../7"):
        assert await replay(mine, unknown) == ([], None)


async def test_a_stream_keeps_only_its_newest_events():
    store = StreamEvents(max_age=600, per_stream=3).session()
    first, second, _ = await stored(store, "_GET_stream", None, progress("1"), progress("2"))
    assert await replay(store, first) == ([progress("1"), progress("2")], "_GET_stream")
    await stored(store, "_GET_stream", progress("3"))
    assert await replay(store, first) == ([], None)  # gone: it cannot be resumed, rather than resumed with a gap
    assert await replay(store, second) == ([progress("2"), progress("3")], "_GET_stream")


async def test_a_session_over_its_bytes_loses_its_own_oldest_events_and_no_other_sessions():
    events = StreamEvents(max_age=600, per_session_bytes=1000)
    busy, quiet = events.session(), events.session()
    (kept,) = await stored(quiet, "7", None)
    first = await busy.store_event("7", None)
    for _ in range(10):
        await busy.store_event("7", progress("x" * 200))
    assert await replay(busy, first) == ([], None)
    assert await replay(quiet, kept) == ([], "7")
    assert events.size <= 1000 + 64


async def test_the_process_over_its_bytes_loses_the_oldest_events_of_any_session():
    events = StreamEvents(max_age=600, total_bytes=2000)
    older, newer = events.session(), events.session()
    (gone,) = await stored(older, "7", None)
    for _ in range(10):
        await newer.store_event("7", progress("x" * 200))
    assert await replay(older, gone) == ([], None)
    assert events.size <= 2000


async def test_events_older_than_their_age_are_not_replayed():
    clock = Clock()
    store = StreamEvents(max_age=600, clock=clock).session()
    priming, _ = await stored(store, "7", None, question(1))
    clock.now += 599
    assert await replay(store, priming) == ([question(1)], "7")
    clock.now += 2
    assert await replay(store, priming) == ([], None)


async def test_a_session_that_ended_leaves_nothing_behind():
    events = StreamEvents(max_age=600)
    store = events.session()
    priming, _ = await stored(store, "7", None, question(1))
    store.clear()
    assert (events.size, await replay(store, priming)) == (0, ([], None))


async def test_each_session_gets_a_store_of_its_own_and_its_events_go_when_the_session_ends():
    events = StreamEvents(max_age=600)
    sessions = CallerSessionManager(Server("test"), per_caller=2, events=events)
    first, second = sessions._admit_session(None), sessions._admit_session(None)
    assert first is not None and second is not None and first._event_store is not second._event_store
    assert isinstance(first._event_store, SessionEvents)
    await first._event_store.store_event("7", question(1))
    assert events.size > 0
    await sessions._discard_session(str(first.mcp_session_id), first)
    assert events.size == 0

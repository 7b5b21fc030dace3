"""A 2025-11-25 stream that drops mid-call resumes with GET and Last-Event-ID, over real HTTP (web/resumption.py)."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest

from aftersales.app import App
from aftersales.domain.callers import ALL_SCOPES
from aftersales.web.app import create_web_app
from aftersales.web.resumption import RETRY_MS
from tests.support.creation import create_arguments
from tests.support.database import count_rows
from tests.support.sessions import LegacyCallers
from tests.support.sse import Event, events
from tests.support.web import serving

pytestmark = [pytest.mark.anyio, pytest.mark.http]
FORMS = {"elicitation": {"form": {}}}
RESUME_WITHIN = 10  # seconds


@pytest.fixture
async def legacy(app: App) -> AsyncIterator[LegacyCallers]:
    """Callers with every scope, on raw 2025-11-25 HTTP, against the web app over the test's database."""
    with serving(create_web_app(app)) as url:
        async with httpx.AsyncClient(timeout=10) as http:
            yield LegacyCallers(url, app.caller_keys, http, ALL_SCOPES)


def create_call(stories: dict[str, Any]) -> dict[str, Any]:
    """A create_ticket call for the VIP laptop without a refund method: it asks for the method, then a confirmation."""
    arguments = create_arguments(stories["vip_laptop_recent"]["order_id"])
    return {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "after_sales_create_ticket", "arguments": arguments},
    }


@asynccontextmanager
async def resumed(
    legacy: LegacyCallers, caller: str, session: str, last_event_id: str
) -> AsyncIterator[AsyncIterator[Event]]:
    """GET with Last-Event-ID: the events replayed, then the rest of the stream as it comes.

    The server carries a stream on only once it has seen the old connection go; a reconnect that gets there first
    is answered with the replay alone, and the client connects again, as a client does after `retry`.
    """
    headers = {**legacy.headers(caller, session), "Accept": "text/event-stream", "Last-Event-ID": last_event_id}
    deadline = anyio.current_time() + RESUME_WITHIN
    while anyio.current_time() < deadline:
        async with legacy.http.stream("GET", legacy.url, headers=headers) as response:
            assert response.status_code == 200, await response.aread()
            stream = events(response)
            replayed = []
            async for event in stream:
                if event.message is None:  # the priming event that says the stream goes on from here
                    yield _chain(replayed, stream)
                    return
                replayed.append(event)
    raise AssertionError(f"the stream was not resumed within {RESUME_WITHIN} seconds")


async def _chain(first: list[Event], rest: AsyncIterator[Event]) -> AsyncIterator[Event]:
    for event in first:
        yield event
    async for event in rest:
        yield event


async def ask_then_drop(legacy: LegacyCallers, session: str, stories: dict[str, Any]) -> tuple[Event, Event]:
    """Call create_ticket and drop the POST's stream once it has asked its first question: the priming event and
    the question's event."""
    headers = legacy.headers("support-bot", session)
    async with legacy.http.stream("POST", legacy.url, json=create_call(stories), headers=headers) as post:
        stream = events(post)
        priming = await anext(stream)
        assert (priming.message, priming.retry, priming.id is not None) == (None, RETRY_MS, True), priming
        asked = await anext(stream)
    return priming, asked


async def answer(
    legacy: LegacyCallers, caller: str, session: str, question: dict[str, Any], content: dict[str, Any]
) -> None:
    """Answer a server's elicitation/create request on the session."""
    reply = {"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": content}}
    response = await legacy.http.post(legacy.url, json=reply, headers=legacy.headers(caller, session))
    assert response.status_code == 202, response.text


async def test_a_stream_dropped_during_a_question_resumes_with_last_event_id_and_the_ticket_is_created_once(
    legacy, app, stories
):
    session = await legacy.open_session("support-bot", FORMS)
    before = count_rows(app.engine)
    priming, asked = await ask_then_drop(legacy, session, stories)  # the connection is gone, the question is open
    question = asked.message
    assert (
        question["method"] == "elicitation/create"
        and "refund_method" in question["params"]["requestedSchema"]["properties"]
    )

    async with resumed(legacy, "support-bot", session, priming.id) as rest:
        again = await anext(rest)
        assert (again.id, again.message) == (asked.id, question)
        await answer(legacy, "support-bot", session, question, {"refund_method": "store_credit"})
        confirm = (await anext(rest)).message
        assert "confirm" in confirm["params"]["requestedSchema"]["properties"]
        await answer(legacy, "support-bot", session, confirm, {"confirm": True})
        result = (await anext(rest)).message

    assert result["id"] == 7 and result["result"]["structuredContent"]["outcome"] == "created"
    assert count_rows(app.engine) == before + 1


async def test_a_last_event_id_from_another_session_replays_nothing_of_it(legacy, app, stories):
    session = await legacy.open_session("support-bot", FORMS)
    priming, _ = await ask_then_drop(legacy, session, stories)
    other = await legacy.open_session("reader")
    headers = {**legacy.headers("reader", other), "Accept": "text/event-stream", "Last-Event-ID": priming.id}
    async with legacy.http.stream("GET", legacy.url, headers=headers) as response:
        replayed = [event async for event in events(response)]
    foreign = {**headers, **legacy.headers("reader", session)}
    refused = await legacy.http.get(legacy.url, headers=foreign)
    assert (response.status_code, replayed) == (200, [])
    assert refused.status_code == 404  # another caller cannot even name the session

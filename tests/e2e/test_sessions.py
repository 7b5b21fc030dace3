"""Sessions of protocol 2025-11-25 over real HTTP: a cap per caller, and an idle timeout from settings."""

from collections.abc import AsyncIterator
from datetime import timedelta

import anyio
import httpx
import pytest

from aftersales.app import App
from aftersales.web.app import create_web_app
from tests.support.sessions import LegacyCallers
from tests.support.web import serving

pytestmark = [pytest.mark.anyio, pytest.mark.http]


@pytest.fixture
async def served(bare_app: App) -> AsyncIterator[LegacyCallers]:
    """The web app with the settings the test's marker sets; no database is ever touched."""
    with serving(create_web_app(bare_app)) as url:
        async with httpx.AsyncClient(timeout=10) as http:
            yield LegacyCallers(url, bare_app.caller_keys, http)


@pytest.mark.settings(sessions_per_caller=3)
async def test_a_caller_at_its_cap_loses_its_oldest_idle_session_to_a_new_one(served):
    first, second, third = [await served.open_session("reader") for _ in range(3)]
    assert await served.ping("reader", first) == 200  # now `second` is the one idle longest
    fourth = await served.open_session("reader")
    assert await served.ping("reader", second) == 404
    assert [await served.ping("reader", s) for s in (first, third, fourth)] == [200, 200, 200]


@pytest.mark.settings(sessions_per_caller=3)
async def test_a_caller_opening_sessions_in_a_loop_keeps_only_its_cap_and_other_callers_are_unaffected(served):
    other = await served.open_session("support-bot")
    opened = [await served.open_session("reader") for _ in range(25)]
    statuses = [await served.ping("reader", session) for session in opened]
    assert statuses == [404] * 22 + [200] * 3
    assert await served.ping("support-bot", other) == 200
    assert (await served.initialize("support-bot")).status_code == 200


@pytest.mark.settings(sessions_per_caller=2)
async def test_a_caller_whose_sessions_are_all_busy_is_refused_with_a_clear_error(served):
    first, second = [await served.open_session("reader") for _ in range(2)]
    async with served.stream("reader", first):
        async with served.stream("reader", second):
            refused = await served.initialize("reader")
            assert (await served.initialize("support-bot")).status_code == 200
        # The second stream ended, so that session is idle again and makes room once the server notices.
        with anyio.fail_after(5):
            while (await served.initialize("reader")).status_code == 429:
                await anyio.sleep(0.05)
        assert await served.ping("reader", second) == 404
        assert await served.ping("reader", first) == 200
    assert refused.status_code == 429
    message = refused.json()["error"]["message"]
    assert "'reader' already has 2 open sessions and every one is busy" in message
    assert "DELETE" in message and "AFTERSALES_SESSIONS_PER_CALLER" in message


# 3 s, not less: on a loaded machine opening two sessions and three pings took over a second, and the idle
# session expired before the pings that were to show it open.
@pytest.mark.settings(session_idle_timeout=timedelta(seconds=3))
async def test_a_session_unused_for_the_idle_timeout_is_closed_while_a_busy_one_stays(served):
    idle, busy = await served.open_session("reader"), await served.open_session("reader")
    async with served.stream("reader", busy):
        statuses = {await served.ping("reader", idle) for _ in range(3)}  # using it keeps it open
        await anyio.sleep(4.5)
        assert await served.ping("reader", busy) == 200
    assert statuses == {200}
    assert await served.ping("reader", idle) == 404

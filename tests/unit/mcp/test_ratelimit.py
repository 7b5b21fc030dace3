"""Per-caller token buckets: a burst at once, then one call per refill interval, read and write tools apart.

The limiter reads an injected clock, so these tests move time by hand instead of waiting for it.
"""

import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from aftersales.mcp.ratelimit import ANSWER_ROUNDS, Bucket, Limit
from aftersales.worlds import context
from tests.support import ROOT
from tests.support.clients import ALICE, BOB
from tests.support.rate_limits import SERVED, STATE_TTL, Limited, retry_after
from tests.support.worlds import a_world

pytestmark = pytest.mark.anyio


def test_a_bucket_serves_its_burst_at_once_then_says_how_long_until_the_next_token():
    bucket = Bucket(Limit(per_minute=60, burst=3), now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [0.0, 0.0, 0.0, 1.0]
    assert bucket.take(0.25) == 0.75  # a refused take spends nothing: the token keeps filling
    assert bucket.take(1.0) == 0.0
    assert bucket.take(1.0) == 1.0


def test_an_idle_bucket_refills_only_up_to_its_burst():
    bucket = Bucket(Limit(per_minute=60, burst=3), now=0.0)
    assert [bucket.take(0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert [bucket.take(3600.0) for _ in range(4)] == [0.0, 0.0, 0.0, 1.0]


async def test_a_caller_over_its_burst_is_refused_without_running_the_tool_and_told_how_long_to_wait():
    limited = Limited()
    assert await limited.calls(ALICE, "look", 3) == [True, True, True]
    refusal = await limited.call(ALICE, "look")
    assert limited.served == 3 and retry_after(refusal) == 10.0
    text = refusal["content"][0]["text"]
    assert 'Caller "alice-bot" sent more read calls than allowed (6 a minute, bursts of 3)' in text
    assert "this call was not run" in text and "This is retryable: wait 10.0 seconds" in text
    assert refusal["_meta"]["aftersales/error"] == "rate_limited"


async def test_tokens_come_back_with_time_at_the_sustained_rate():
    limited = Limited()
    await limited.calls(ALICE, "look", 3)
    limited.wait(4)
    assert retry_after(await limited.call(ALICE, "look")) == 6.0
    limited.wait(6)
    assert await limited.calls(ALICE, "look", 2) == [True, False]
    limited.wait(25)
    assert await limited.calls(ALICE, "look", 3) == [True, True, False]


async def test_each_caller_and_each_kind_of_tool_has_a_bucket_of_its_own():
    limited = Limited()
    assert await limited.calls(ALICE, "look", 4) == [True, True, True, False]
    assert await limited.calls(BOB, "look", 3) == [True, True, True]
    assert await limited.calls(ALICE, "change", 2) == [True, False]
    assert await limited.calls(BOB, "change", 1) == [True]


async def test_calls_without_an_authenticated_caller_share_one_anonymous_bucket():
    limited = Limited()
    assert await limited.calls(None, "change", 2) == [True, False]
    assert 'Caller "anonymous" sent more write calls' in (await limited.call(None, "change"))["content"][0]["text"]


async def test_unknown_tools_and_other_requests_pass_and_spend_no_token():
    limited = Limited(writes=Limit(per_minute=1, burst=1))
    for _ in range(3):
        assert await limited.call(ALICE, "tools/list", method="tools/list") == SERVED
        assert await limited.call(ALICE, "no_such_tool") == SERVED  # the argument gate refuses it, not the limiter
    assert await limited.calls(ALICE, "change", 2) == [True, False]


async def test_a_wait_is_stated_in_tenths_of_a_second_and_never_as_zero():
    limited = Limited()
    await limited.call(ALICE, "change")
    limited.wait(0.83)
    assert retry_after(await limited.call(ALICE, "change")) == 0.2  # 0.17 seconds
    limited.wait(0.166)
    assert retry_after(await limited.call(ALICE, "change")) == 0.1  # 0.004 seconds


async def test_each_world_keeps_buckets_of_its_own_for_the_same_caller():
    limited = Limited()
    with context.entered(a_world("w-one"), lambda _: 1):
        assert await limited.calls(ALICE, "change", 2) == [True, False]
    with context.entered(a_world("w-two"), lambda _: 1):
        assert await limited.calls(ALICE, "change", 2) == [True, False]
    assert await limited.calls(ALICE, "change", 1) == [True]  # the default world is untouched too


async def test_reading_a_resource_by_id_spends_the_callers_read_tokens_and_is_refused_as_invalid_params():
    limited = Limited()
    assert await limited.read(ALICE, "limited://things/1") == SERVED
    assert await limited.calls(ALICE, "look", 2) == [True, True]
    with pytest.raises(MCPError) as refused:
        await limited.read(ALICE, "limited://things/2")
    error = refused.value.error
    assert limited.served == 3 and error.code == INVALID_PARAMS
    assert error.data == {"aftersales/error": "rate_limited", "aftersales/retryAfterSeconds": 10.0}
    assert 'Caller "alice-bot" sent more read calls than allowed (6 a minute, bursts of 3)' in error.message
    assert "this resource read was not run" in error.message and "wait 10.0 seconds" in error.message
    assert retry_after(await limited.call(ALICE, "look")) == 10.0  # one bucket: the reads spent the tool's tokens
    assert await limited.read(BOB, "limited://things/2") == SERVED


async def test_a_fixed_resource_an_unknown_uri_and_a_caller_under_its_write_limit_pass_a_drained_read_bucket():
    limited = Limited()
    await limited.calls(ALICE, "look", 3)
    for uri in ("limited://rules", "limited://nothing/here", "elsewhere://things/1"):
        assert await limited.read(ALICE, uri) == SERVED
    assert await limited.send(ALICE, "resources/read", {"uri": 7}) == SERVED  # the SDK refuses what is not a URI
    assert await limited.calls(ALICE, "change", 1) == [True]


@pytest.mark.parametrize("elapsed", [0.86, 0.83, 0.7, 0.5, 0.999, 0.01])
async def test_a_wait_is_rounded_up_to_the_tenth_so_a_retry_after_exactly_that_long_is_served(elapsed):
    limited = Limited()  # a write token a second
    await limited.call(ALICE, "change")
    limited.wait(elapsed)
    stated = retry_after(await limited.call(ALICE, "change"))
    assert 1 - elapsed - 1e-6 <= stated < 1 - elapsed + 0.1 + 1e-6 and stated * 10 == round(stated * 10)
    limited.wait(stated)
    assert await limited.call(ALICE, "change") == SERVED


async def test_a_round_that_answers_a_calls_questions_is_neither_charged_nor_refused():
    limited = Limited()
    assert await limited.call(ALICE, "change") == SERVED  # the first round takes the last write token
    assert await limited.answer(ALICE, "change") == SERVED
    assert retry_after(await limited.call(ALICE, "change")) == 1.0  # the answer took nothing: one token a second
    limited.wait(1.0)
    assert await limited.call(ALICE, "change") == SERVED


async def test_a_round_with_answers_but_no_verified_request_state_is_charged_like_any_call():
    limited = Limited()
    await limited.call(ALICE, "change")
    answers = {"confirm": {"action": "accept", "content": {"confirm": True}}}
    unproven = await limited.send(ALICE, "tools/call", {"name": "change", "arguments": {}, "inputResponses": answers})
    assert retry_after(unproven) == 1.0 and limited.served == 1


async def test_a_replayed_answer_is_free_only_a_few_rounds_per_call_and_state_lifetime_then_charged():
    limited = Limited()
    await limited.call(ALICE, "change")
    assert [await limited.answer(ALICE, "change") == SERVED for _ in range(ANSWER_ROUNDS)] == [True] * ANSWER_ROUNDS
    assert retry_after(await limited.answer(ALICE, "change")) == 1.0  # a replay loop meets the limit again
    # Each call (caller, tool, arguments) has an allowance of its own.
    assert await limited.answer(ALICE, "change", {"ticket_id": "T-2026-0001"}) == SERVED
    assert await limited.answer(BOB, "change") == SERVED
    limited.wait(STATE_TTL)  # every state of that lifetime has expired: a new call's rounds are free again
    free = [await limited.answer(ALICE, "change") == SERVED for _ in range(ANSWER_ROUNDS)]
    assert free == [True] * ANSWER_ROUNDS
    assert await limited.answer(ALICE, "change") == SERVED  # charged: the bucket refilled while the states lived
    assert retry_after(await limited.answer(ALICE, "change")) == 1.0


def test_the_docs_state_the_free_answering_rounds_the_limiter_allows():
    errors = (ROOT / "docs" / "errors.md").read_text()
    assert f"at most {ANSWER_ROUNDS} such free rounds per `AFTERSALES_STATE_TTL`" in " ".join(errors.split())

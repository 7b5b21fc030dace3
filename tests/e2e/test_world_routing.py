"""Requests made with a token bound to a world run entirely in it: data, clock, ids, limits, sessions, state."""

from datetime import timedelta

import httpx
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import InputRequiredResult

from aftersales.clock import now
from aftersales.domain.callers import ALL_SCOPES
from aftersales.security import tokens
from tests.support.clients import connect_http
from tests.support.creation import create_arguments
from tests.support.elicitation import Person, second_round
from tests.support.episodes import CREATE, ESTIMATE, QUERY
from tests.support.sessions import ACCEPT, INITIALIZE
from tests.support.worlds import PINNED, next_number

pytestmark = [pytest.mark.anyio, pytest.mark.http]
SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # the MCP layer's rules, not storage's


async def estimate_and_create(world, order_id: str, words: str) -> dict:
    async with connect_http(world.url.removesuffix("/mcp"), world.token) as client:
        quote = await client.call_tool(ESTIMATE, {"order_id": order_id, "line_no": 1, "reason_code": "defective"})
        arguments = create_arguments(
            order_id, description=words, refund_method="original_payment", quote_id=quote.structured_content["quote_id"]
        )
        made = await client.call_tool(CREATE, arguments)
    assert not made.is_error, made.content
    return made.structured_content["ticket"]


async def test_the_same_create_in_two_forks_gets_the_same_number_and_each_diff_holds_only_its_own_rows(
    served_worlds, stories, baseline, token
):
    admin = served_worlds.admin
    base = admin.create(at=PINNED)
    first, second = base.fork(), base.fork()
    order = stories["cheap_tshirts_in_window"]["order_id"]
    made_first = await estimate_and_create(first, order, "Made in the first world.")
    made_second = await estimate_and_create(second, order, "Made in the second world.")
    assert made_first["ticket_id"] == made_second["ticket_id"] == next_number(baseline)
    for world, words in ((first, "Made in the first world."), (second, "Made in the second world.")):
        changes = world.diff()
        assert changes["summary"] == {
            "idempotency_records": {"added": 1, "removed": 0, "changed": 0},
            "quotes": {"added": 1, "removed": 0, "changed": 0},
            "ticket_events": {"added": 2, "removed": 0, "changed": 0},
            "ticket_sequences": {"added": 0, "removed": 0, "changed": 1},
            "tickets": {"added": 1, "removed": 0, "changed": 0},
        }  # the audit is left out of diffs unless asked for
        assert [row["row"]["description"] for row in changes["tables"]["tickets"]["added"]] == [words]
    assert base.diff()["identical"] and first.diff(against=second.id)["summary"]["tickets"]["changed"] == 1
    served_worlds.app.audit.flush()
    assert first.diff(audit=True)["summary"]["tool_calls"]["added"] == 2  # its audit lives in the world
    async with connect_http(served_worlds.url, token) as client:  # the default world saw nothing
        result = await client.call_tool(QUERY, {"ticket_id": made_first["ticket_id"]})
    assert result.is_error and "No ticket" in result.content[0].text


async def test_a_token_naming_a_dropped_or_unknown_world_gets_404_and_never_other_data(served_worlds):
    world = served_worlds.admin.create(at=PINNED)
    keys = served_worlds.app.caller_keys
    unknown = tokens.issue(keys, "agent", list(ALL_SCOPES), timedelta(hours=1), now(), world="w-nowhere")
    world.drop()
    async with httpx.AsyncClient() as http:
        for bound, name in ((world.token, world.id), (unknown, "w-nowhere")):
            answer = await http.post(
                f"{served_worlds.url}/mcp",
                headers={"Authorization": f"Bearer {bound}", "Accept": "application/json, text/event-stream"},
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            )
            assert answer.status_code == 404
            body = answer.json()
            assert body["error"] == "unknown_world" and f'There is no world "{name}".' in body["error_description"]
            assert "aftersales world create" in body["what_to_do"]


async def test_a_token_of_a_dropped_world_is_refused_by_a_world_made_again_under_its_id(served_worlds, stories):
    ticket = stories["ticket_in_repair"]["ticket_id"]
    first = served_worlds.admin.create(at=PINNED, world_id="again")
    old_tokens = [first.token, first.token_for("agent-2", ttl="1h")]
    async with connect_http(served_worlds.url, first.token) as client:  # the router now remembers the first one
        assert not (await client.call_tool(QUERY, {"ticket_id": ticket})).is_error
    first.drop()
    second = served_worlds.admin.create(at=PINNED, world_id="again")
    async with httpx.AsyncClient() as http:
        for old in old_tokens:
            answer = await http.post(
                f"{served_worlds.url}/mcp",
                headers={"Authorization": f"Bearer {old}", "Accept": "application/json, text/event-stream"},
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            )
            assert answer.status_code == 401 and answer.json()["error"] == "invalid_token"
            body = answer.json()
            assert 'the bearer token is for an earlier world "again", dropped since' in body["error_description"]
            assert "was made again" in body["what_to_do"] and "Issue a new token" in body["what_to_do"]
    async with connect_http(served_worlds.url, second.token) as client:
        assert not (await client.call_tool(QUERY, {"ticket_id": ticket})).is_error


@SQLITE_ONLY
async def test_a_round_or_a_session_opened_in_one_world_is_refused_in_another(served_worlds, stories):
    admin = served_worlds.admin
    first, second = admin.create(at=PINNED), admin.create(at=PINNED)  # the same caller ("agent") in both
    arguments = create_arguments(stories["vip_laptop_recent"]["order_id"])
    async with connect_http(served_worlds.url, first.token, elicitation_callback=Person()) as client:
        asked = await client.session.call_tool(CREATE, arguments, allow_input_required=True)
    assert isinstance(asked, InputRequiredResult)
    async with connect_http(served_worlds.url, second.token, elicitation_callback=Person()) as client:
        with pytest.raises(MCPError) as refused:
            await second_round(client.session, CREATE, arguments, asked)
    assert refused.value.error.code == -32602
    [traced] = second.trace()  # the SDK refused the round, and the second world's trace still shows the call
    assert (traced["tool"], traced["outcome"], traced["error"]["code"]) == (CREATE, "protocol_error", -32602)
    async with httpx.AsyncClient() as http:
        url = f"{served_worlds.url}/mcp"
        opened = await http.post(url, json=INITIALIZE, headers=ACCEPT | {"Authorization": f"Bearer {first.token}"})
        session = {"Mcp-Session-Id": opened.headers["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25"}
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        pings = [
            (
                await http.post(url, json=ping, headers=ACCEPT | session | {"Authorization": f"Bearer {bound}"})
            ).status_code
            for bound in (first.token, second.token)
        ]
    assert pings == [200, 404]  # the session belongs to the caller in the first world only


@SQLITE_ONLY
@pytest.mark.settings(rate_write_per_minute=1, rate_write_burst=1)
async def test_rate_limits_are_kept_per_world(served_worlds, stories):
    admin = served_worlds.admin
    first, second = admin.create(at=PINNED), admin.create(at=PINNED)
    order = stories["cheap_tshirts_in_window"]["order_id"]
    arguments = create_arguments(order, refund_method="original_payment")
    outcomes = []
    for number, world in enumerate((first, first, second)):
        async with connect_http(served_worlds.url, world.token) as client:
            result = await client.call_tool(CREATE, arguments | {"idempotency_key": f"rate-key-{number:04d}"})
        outcomes.append(result.meta["aftersales/error"] if result.is_error else result.structured_content["outcome"])
    assert outcomes == ["created", "rate_limited", "created"]

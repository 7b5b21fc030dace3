"""A world's trace: every tool call made in it, in order, with results, questions and answers, on both revisions."""

import pytest
from mcp.shared.exceptions import MCPError

from aftersales.web.app import create_web_app
from tests.support.clients import connect_http
from tests.support.creation import create_arguments
from tests.support.elicitation import Person
from tests.support.episodes import CREATE, ESTIMATE, episode
from tests.support.web import serving
from tests.support.worlds import PINNED

pytestmark = [pytest.mark.anyio, pytest.mark.http]
SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # the MCP layer's rules, not storage's
REFUND_METHOD = "after_sales_create_ticket:refund_method"


async def test_the_trace_holds_every_call_of_an_episode_with_its_questions_and_answers_in_order(
    served_worlds, mode, stories
):
    world = served_worlds.admin.create(at=PINNED, deterministic=True)
    order = stories["cheap_tshirts_in_window"]["order_id"]
    played = await episode(world, mode, order)
    entries = world.trace()  # read the moment the last call returned: nothing may be missing
    assert [entry["seq"] for entry in entries] == list(range(1, len(entries) + 1))
    assert {entry["world"] for entry in entries} == {world.id}
    assert {entry["protocol"] for entry in entries} == {"2025-11-25" if mode == "legacy" else "2026-07-28"}
    estimate, *creates, replay = entries
    assert estimate["tool"] == ESTIMATE and estimate["outcome"] == "ok"
    assert estimate["arguments"] == {"order_id": order, "line_no": 1, "reason_code": "defective"}
    assert estimate["result"]["quote_id"] == played.quote_id and estimate["started_at"] == "2026-12-01T09:00:00Z"
    question = "Where should the refund for Cotton T-Shirt 3-Pack (order O-2026-001410) go?"
    answer = {"action": "accept", "content": {"refund_method": "store_credit"}}
    if mode == "legacy":  # the form is sent mid-call and answered in the same call
        [created] = creates
        [asked] = created["rounds"]
        assert asked["via"] == "elicitation/create" and asked["answered_by"] == "client"
        assert [q["message"] for q in asked["questions"]] == [question]
        assert asked["answers"] == [{"key": None, **answer}]
    else:  # the question comes back as input_required; the retry carries the answer
        first, created = creates
        assert first["outcome"] == "input_required" and first["result"] is None
        assert [(q["key"], q["message"]) for q in first["input_requests"]] == [(REFUND_METHOD, question)]
        assert first["rounds"][0]["answers"] is None
        assert created["resumes"] == first["seq"]
        [answered] = created["rounds"]
        assert answered["questions"] == first["input_requests"] and answered["answered_by"] == "client"
        assert answered["answers"] == [{"key": REFUND_METHOD, **answer}]
    assert created["tool"] == CREATE and created["outcome"] == "ok" and not created["replayed"]
    assert created["result"]["ticket"]["ticket_id"] == played.ticket_id
    assert created["arguments"]["quote_id"] == played.quote_id
    assert replay["replayed"] and replay["result"]["outcome"] == played.replay_outcome == "replayed"
    assert all(entry["latency_ms"] > 0 for entry in entries)


@SQLITE_ONLY
async def test_protocol_errors_and_tool_errors_in_a_world_are_traced_with_what_the_client_got(served_worlds):
    world = served_worlds.admin.create(at=PINNED)
    async with connect_http(served_worlds.url, world.token) as client:
        with pytest.raises(MCPError):
            await client.call_tool("after_sales_make_coffee", {"strength": "double"})
        refused = await client.call_tool(
            ESTIMATE, {"order_id": "O-2026-999999", "line_no": 1, "reason_code": "defective"}
        )
    unknown, missing = world.trace()
    assert unknown["outcome"] == "protocol_error" and unknown["error"]["code"] == -32602
    assert unknown["tool"] == "after_sales_make_coffee" and unknown["arguments"] == {"strength": "double"}
    assert missing["outcome"] == "tool_error" and missing["error_kind"] == "not_found"
    assert missing["error"]["message"] == refused.content[0].text


class ScriptedCustomer:
    """A world that answers its own forms: the refund method from a task's script, nothing else."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def __call__(self, world_id: str, question: dict) -> dict | None:
        self.asked.append(world_id)
        if "refund_method" not in (question.get("requested_schema") or {}).get("properties", {}):
            return None
        return {"action": "accept", "content": {"refund_method": "original_payment"}}


@SQLITE_ONLY
async def test_a_world_can_answer_its_own_forms_and_the_trace_says_the_script_answered(served_worlds, mode, stories):
    script = ScriptedCustomer()
    served_worlds.app.form_answerer = script  # the seam a harness plugs a task's script into
    world = served_worlds.admin.create(at=PINNED)
    person = Person(method="store_credit")
    with serving(create_web_app(served_worlds.app)) as url:
        async with connect_http(url, world.token, mode, elicitation_callback=person) as client:
            made = await client.call_tool(CREATE, create_arguments(stories["cheap_tshirts_in_window"]["order_id"]))
    assert made.structured_content["ticket"]["refund"]["method"] == "original_payment"
    assert person.seen == [] and script.asked == [world.id]  # the client was never asked
    [entry] = world.trace()
    [round_] = entry["rounds"]
    assert round_["answered_by"] == "script" and round_["answers"][0]["content"] == {
        "refund_method": "original_payment"
    }


@SQLITE_ONLY
async def test_the_trace_says_whether_the_client_could_show_forms_and_a_question_it_could_not_ask_is_no_rule(
    served_worlds, mode, stories
):
    world = served_worlds.admin.create(at=PINNED)
    call = create_arguments(stories["cheap_tshirts_in_window"]["order_id"])
    async with connect_http(served_worlds.url, world.token, mode) as without:
        await without.call_tool(CREATE, call)
    async with connect_http(served_worlds.url, world.token, mode, elicitation_callback=Person()) as with_forms:
        await with_forms.call_tool(ESTIMATE, {"order_id": call["order_id"], "line_no": 1, "reason_code": "defective"})
    unasked, estimated = world.trace()
    assert (unasked["client_forms"], unasked["outcome"], unasked["error_kind"]) == (False, "tool_error", "input_needed")
    assert estimated["client_forms"] is True

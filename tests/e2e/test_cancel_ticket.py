"""after_sales_cancel_ticket through the real MCP client, on both revisions: the person confirms, declines or closes
the question, a client without forms, replays, refusals, and the units a cancelled ticket frees."""

import pytest
from freezegun import freeze_time
from mcp.shared.exceptions import MCPError
from mcp_types import InputRequiredResult
from sqlalchemy import func, select

from aftersales.clock import wall
from aftersales.domain.callers import READ, Caller
from aftersales.mcp.ratelimit import ANSWER_ROUNDS
from aftersales.storage.models import Ticket, TicketEvent
from tests.support.cancellation import cancel_arguments
from tests.support.clients import connect, leaks
from tests.support.creation import create_arguments
from tests.support.elicitation import MISTYPED_CONFIRMATIONS, Person, second_round

pytestmark = pytest.mark.anyio
TOOL = "after_sales_cancel_ticket"


def state(app, ticket_id: str) -> tuple[str, int]:
    """The ticket's status and how many timeline events it has, as the database holds them."""
    with app.uow() as uow:
        status = uow.session.scalar(select(Ticket.status).where(Ticket.id == ticket_id))
        events = uow.session.scalar(select(func.count()).where(TicketEvent.ticket_id == ticket_id))
    return status, events


async def test_the_person_confirms_and_the_ticket_is_cancelled_with_who_and_why(server, app, mode, stories):
    ticket_id, person = stories["ticket_awaiting_return"]["ticket_id"], Person()
    _, events = state(app, ticket_id)
    async with connect(server, mode, elicitation_callback=person) as client:
        result = await client.call_tool(TOOL, cancel_arguments(ticket_id))
        shown = await client.call_tool("after_sales_query_ticket", {"ticket_id": ticket_id})
    outcome = result.structured_content
    assert not result.is_error and outcome["outcome"] == "cancelled" and person.questions == ["confirm"]
    assert person.seen[0].message.startswith(f"Cancel ticket {ticket_id} (return and refund of 1 x ")
    assert "This cannot be undone." in person.seen[0].message
    assert state(app, ticket_id) == ("cancelled", events + 2)
    assert shown.structured_content == outcome["ticket"] and outcome["ticket"]["stage"] == "closed"
    assert outcome["ticket"]["timeline"][-1]["note"].startswith('Cancelled by support-bot for the customer: "I found')


@pytest.mark.parametrize(("action", "words"), [("decline", "declined"), ("cancel", "closed the cancellation")])
async def test_declining_or_closing_the_question_changes_nothing_and_says_not_to_retry(
    server, app, mode, stories, action, words
):
    ticket_id = stories["ticket_under_review"]["ticket_id"]
    before = state(app, ticket_id)
    async with connect(server, mode, elicitation_callback=Person(action=action)) as client:
        result = await client.call_tool(TOOL, cancel_arguments(ticket_id))
    outcome = result.structured_content
    assert not result.is_error and outcome["outcome"] == "not_cancelled" and words in outcome["reason"]
    assert "Do not retry unless the customer changes their mind" in outcome["next_step"]
    assert outcome["ticket"]["status"] == "under_review" and state(app, ticket_id) == before


async def test_a_person_who_does_not_tick_the_box_cancels_nothing(server, app, mode, stories):
    ticket_id = stories["ticket_under_review"]["ticket_id"]
    before = state(app, ticket_id)
    async with connect(server, mode, elicitation_callback=Person(confirm=False)) as client:
        result = await client.call_tool(TOOL, cancel_arguments(ticket_id))
    assert result.structured_content["outcome"] == "not_cancelled" and state(app, ticket_id) == before


@pytest.mark.parametrize(("content", "field"), MISTYPED_CONFIRMATIONS, ids=str)
async def test_a_confirmation_that_is_not_a_json_boolean_is_refused_naming_the_field_and_cancels_nothing(
    server, app, mode, stories, content, field
):
    ticket_id = stories["ticket_under_review"]["ticket_id"]
    before = state(app, ticket_id)
    async with connect(server, mode, elicitation_callback=Person(typed={"confirm": content})) as client:
        result = await client.call_tool(TOOL, cancel_arguments(ticket_id))
    text = result.content[0].text
    assert result.is_error and result.meta["aftersales/error"] == "invalid_answer"
    assert text.startswith(f"{TOOL}: ") and f"({1}) {field}: " in text and "Nothing was changed." in text
    assert "Call the tool again with the same arguments so the person is asked again" in text
    assert leaks(text) == [] and "Resolver" not in text and state(app, ticket_id) == before


async def test_a_client_without_forms_cancels_and_the_timeline_says_the_host_confirmed(server, app, mode, stories):
    ticket_id = stories["ticket_awaiting_return"]["ticket_id"]
    async with connect(server, mode) as client:
        result = await client.call_tool(TOOL, cancel_arguments(ticket_id))
    notes = [event["note"] for event in result.structured_content["ticket"]["timeline"]]
    assert result.structured_content["outcome"] == "cancelled" and state(app, ticket_id)[0] == "cancelled"
    assert any("left to the host application" in note for note in notes)


async def test_the_same_key_replays_without_asking_again_or_writing(server, app, mode, stories):
    ticket_id, person = stories["ticket_awaiting_return"]["ticket_id"], Person()
    call = cancel_arguments(ticket_id)
    async with connect(server, mode, elicitation_callback=person) as client:
        first = (await client.call_tool(TOOL, call)).structured_content
        after_first = state(app, ticket_id)
        again = (await client.call_tool(TOOL, call)).structured_content
    assert (again["outcome"], again["ticket"]) == ("replayed", first["ticket"])
    assert person.questions == ["confirm"] and state(app, ticket_id) == after_first


@pytest.mark.parametrize("story", ["ticket_in_repair", "ticket_refunding"])
async def test_a_ticket_past_cancelling_is_refused_by_its_rule_code_and_nobody_is_asked(
    server, app, mode, stories, story
):
    ticket_id, person = stories[story]["ticket_id"], Person()
    before = state(app, ticket_id)
    async with connect(server, mode, elicitation_callback=person) as client:
        result = await client.call_tool(TOOL, cancel_arguments(ticket_id))
    assert result.is_error and result.meta["aftersales/error"] == "rule"
    assert result.structured_content == {"error_kind": "rule", "error_code": "ticket_not_cancellable"}
    assert person.seen == [] and state(app, ticket_id) == before


async def test_the_question_comes_as_one_input_required_round_keyed_by_tool_and_name(server, app, stories):
    ticket_id = stories["ticket_awaiting_return"]["ticket_id"]
    call, before = cancel_arguments(ticket_id), state(app, ticket_id)
    async with connect(server, elicitation_callback=Person()) as client:
        first = await client.session.call_tool(TOOL, call, allow_input_required=True)
        assert isinstance(first, InputRequiredResult) and list(first.input_requests) == [f"{TOOL}:confirm"]
        assert state(app, ticket_id) == before  # a round that asks changes nothing
        done = await second_round(client.session, TOOL, call, first)
    assert done.structured_content["outcome"] == "cancelled" and state(app, ticket_id)[0] == "cancelled"


async def test_a_caller_without_the_write_scope_is_refused_before_anyone_is_asked(server, app, mode, stories):
    ticket_id, person = stories["ticket_awaiting_return"]["ticket_id"], Person()
    reader = Caller("reader-bot", frozenset({READ}))
    async with connect(server, mode, caller=reader, elicitation_callback=person) as client:
        result = await client.call_tool(TOOL, cancel_arguments(ticket_id))
    assert result.is_error and "lacks the scope tickets:write" in result.content[0].text and person.seen == []
    assert state(app, ticket_id)[0] == "awaiting_return"


async def test_a_cancelled_ticket_frees_the_line_for_a_new_estimate_and_ticket(server, mode, stories):
    order_id = stories["headphones_in_window_qty3"]["order_id"]
    estimate = {"order_id": order_id, "line_no": 1, "quantity": 3, "reason_code": "damaged"}
    ticket = create_arguments(order_id, quantity=3, reason_code="damaged", refund_method="store_credit")
    async with connect(server, mode) as client:
        opened = (await client.call_tool("after_sales_create_ticket", ticket)).structured_content["ticket"]
        held = await client.call_tool("after_sales_estimate_refund", estimate)
        await client.call_tool(TOOL, cancel_arguments(opened["ticket_id"]))
        freed = await client.call_tool("after_sales_estimate_refund", estimate)
        again = await client.call_tool(
            "after_sales_create_ticket",
            ticket | {"quote_id": freed.structured_content["quote_id"], "idempotency_key": "again-0001"},
        )
    assert held.is_error and held.structured_content["error_code"] == "line_has_open_ticket"
    assert opened["ticket_id"] in held.content[0].text
    assert not freed.is_error and again.structured_content["outcome"] == "created"
    assert again.structured_content["ticket"]["ticket_id"] != opened["ticket_id"]


@pytest.mark.settings(rate_write_per_minute=60, rate_write_burst=1)
async def test_a_cancel_retried_as_the_rate_limit_says_is_done_though_the_write_bucket_is_nearly_empty(
    server, app, mode, stories
):
    ticket_id, person = stories["ticket_awaiting_return"]["ticket_id"], Person()
    arguments, refusals = cancel_arguments(ticket_id), []
    # The limiter's clock stands still until the test moves it by exactly the wait each refusal states.
    with freeze_time(wall(), tick=False, real_asyncio=True) as clock:
        async with connect(server, mode, elicitation_callback=person) as client:
            await client.call_tool(TOOL, {"ticket_id": ticket_id})  # an argument error, still a write: the last token
            for _ in range(6):
                result = await client.call_tool(TOOL, arguments)
                if not (result.is_error and result.meta["aftersales/error"] == "rate_limited"):
                    break
                refusals.append(result.meta["aftersales/retryAfterSeconds"])
                clock.tick(refusals[-1])
    # One refusal, for the first round of the first attempt; the retry after 1.0 s is asked once and done.
    assert refusals == [1.0] and person.questions == ["confirm"]
    assert not result.is_error and result.structured_content["outcome"] == "cancelled"
    assert state(app, ticket_id)[0] == "cancelled"


@pytest.mark.settings(rate_write_per_minute=60, rate_write_burst=1)
async def test_a_replayed_answer_meets_the_limit_after_a_few_free_rounds_and_a_forged_one_is_refused(
    server, app, stories
):
    ticket_id = stories["ticket_under_review"]["ticket_id"]
    call = cancel_arguments(ticket_id)
    with freeze_time(wall(), tick=False, real_asyncio=True):
        async with connect(server, elicitation_callback=Person()) as client:
            first = await client.session.call_tool(TOOL, call, allow_input_required=True)  # the only write token
            answered = [await second_round(client.session, TOOL, call, first) for _ in range(ANSWER_ROUNDS + 1)]
            with pytest.raises(MCPError) as forged:
                await second_round(client.session, TOOL, call, first, state=first.request_state[:-4] + "AAAA")
    outcomes = [r.meta["aftersales/error"] if r.is_error else r.structured_content["outcome"] for r in answered]
    assert outcomes == ["cancelled"] + ["replayed"] * (ANSWER_ROUNDS - 1) + ["rate_limited"]
    assert forged.value.error.code == -32602 and state(app, ticket_id)[0] == "cancelled"

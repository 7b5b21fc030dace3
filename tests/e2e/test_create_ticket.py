"""after_sales_create_ticket through the real MCP client: elicitation on both revisions, requestState, replay."""

from datetime import timedelta
from typing import Any

import anyio.to_thread
import pytest
from freezegun import freeze_time
from mcp.shared.exceptions import MCPError
from mcp_types import InputRequiredResult
from sqlalchemy import update

from aftersales.domain.callers import ALL_SCOPES, Caller
from aftersales.domain.creation import TicketRequest
from aftersales.services import creation
from aftersales.storage.models import IdempotencyRecord, Ticket
from tests.support.clients import connect, leaks
from tests.support.creation import create_arguments
from tests.support.database import count_rows
from tests.support.elicitation import MISTYPED_CONFIRMATIONS, MISTYPED_METHODS, Person, second_round

pytestmark = pytest.mark.anyio
TOOL = "after_sales_create_ticket"


async def test_a_return_without_a_method_asks_for_method_and_confirmation_then_creates_one_ticket(
    server, app, mode, stories
):
    person, before = Person(method="original_payment"), count_rows(app.engine)
    async with connect(server, mode, elicitation_callback=person) as client:
        result = await client.call_tool(TOOL, create_arguments(stories["vip_laptop_recent"]["order_id"]))
        created = result.structured_content
        shown = await client.call_tool("after_sales_query_ticket", {"ticket_id": created["ticket"]["ticket_id"]})
    assert created["outcome"] == "created" and count_rows(app.engine) == before + 1
    assert person.questions == ["refund_method", "confirm"]
    method_field = person.seen[0].requested_schema["properties"]["refund_method"]
    assert [option["title"] for option in method_field["oneOf"]] == [
        "Back to the card or wallet used to pay",
        "Store credit, usable right away",
    ]
    assert "¥12,999.00" in person.seen[1].message and "ThinkPad" in person.seen[1].message
    assert shown.structured_content == created["ticket"]
    assert created["ticket"]["refund"]["method"] == "original_payment"
    assert "confirmed the refund of ¥12,999.00" in str(created["ticket"]["timeline"])


async def test_a_confirmation_asked_with_the_method_reads_the_same_whatever_the_method_answer(
    server, app, mode, stories
):
    order_id, seen = stories["vip_laptop_recent"]["order_id"], []
    for method in ("original_payment", "store_credit"):
        person = Person(method=method)
        async with connect(server, mode, elicitation_callback=person) as client:
            result = await client.call_tool(TOOL, create_arguments(order_id))
        assert result.structured_content["outcome"] == "created" and person.questions == ["refund_method", "confirm"]
        seen.append(person.seen[1].message)
        with app.uow(write=True) as uow:  # one open ticket per line: close this one before the next run
            uow.session.execute(update(Ticket).where(Ticket.order_id == order_id).values(status="cancelled"))
            uow.commit()
    assert (
        seen
        == [
            "Open a refund ticket for 1 x Lenovo ThinkPad X1 Carbon Gen 12, refunding ¥12,999.00? Please confirm with "
            "the customer."
        ]
        * 2
    )


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_declining_or_cancelling_creates_nothing_and_says_not_to_retry(server, app, mode, stories, action):
    before = count_rows(app.engine)
    async with connect(server, mode, elicitation_callback=Person(action=action)) as client:
        result = await client.call_tool(TOOL, create_arguments(stories["cheap_tshirts_in_window"]["order_id"]))
    outcome = result.structured_content
    assert not result.is_error and outcome["outcome"] == "not_created" and outcome["ticket"] is None
    assert (
        f"{action}" in outcome["reason"]
        and "Do not retry unless the customer changes their mind" in (outcome["next_step"])
    )
    assert count_rows(app.engine) == before


async def test_a_person_who_does_not_tick_the_confirmation_gets_no_ticket(server, app, mode, stories):
    before = count_rows(app.engine)
    async with connect(server, mode, elicitation_callback=Person(confirm=False)) as client:
        result = await client.call_tool(
            TOOL, create_arguments(stories["vip_laptop_recent"]["order_id"], refund_method="store_credit")
        )
    assert result.structured_content["outcome"] == "not_created" and count_rows(app.engine) == before


# Every mistyped method, and the confirmations that would otherwise open a ticket (cancelling tries them all).
MISTYPED = [("refund_method", *answer) for answer in MISTYPED_METHODS] + [
    ("confirm", *answer) for answer in MISTYPED_CONFIRMATIONS if answer[0].get("confirm") in ("yes", 1, True)
]


@pytest.mark.parametrize(("form", "content", "field"), MISTYPED, ids=str)
async def test_an_answer_that_does_not_fit_its_form_is_refused_naming_the_field_and_creates_nothing(
    server, app, mode, stories, form, content, field
):
    before = count_rows(app.engine), count_rows(app.engine, IdempotencyRecord)
    call = create_arguments(stories["vip_laptop_recent"]["order_id"])  # a large refund: both questions are asked
    async with connect(server, mode, elicitation_callback=Person(typed={form: content})) as client:
        result = await client.call_tool(TOOL, call)
        after = count_rows(app.engine), count_rows(app.engine, IdempotencyRecord)
        # Nothing was kept under the key either: the same call, answered as the forms ask, opens the ticket.
        again = await connect_and_call(server, mode, call)
    text = result.content[0].text
    assert result.is_error and result.meta["aftersales/error"] == "invalid_answer"
    assert text.startswith(f"{TOOL}: ") and f"(1) {field}: " in text and "Nothing was changed." in text
    assert leaks(text) == [] and "Resolver" not in text and after == before
    assert again.structured_content["outcome"] == "created"


async def connect_and_call(server: Any, mode: str, call: dict[str, Any]) -> Any:
    """`call` from a new client whose person answers every form as it asks."""
    async with connect(server, mode, elicitation_callback=Person()) as client:
        return await client.call_tool(TOOL, call)


async def test_a_small_refund_asks_only_for_the_method_and_a_given_method_asks_only_to_confirm(server, mode, stories):
    small, large = Person(), Person()
    async with connect(server, mode, elicitation_callback=small) as client:
        await client.call_tool(TOOL, create_arguments(stories["cheap_tshirts_in_window"]["order_id"]))
    async with connect(server, mode, elicitation_callback=large) as client:
        await client.call_tool(
            TOOL, create_arguments(stories["vip_laptop_recent"]["order_id"], refund_method="store_credit")
        )
    assert small.questions == ["refund_method"]
    assert large.questions == ["confirm"] and "as store credit" in large.seen[0].message


async def test_exchanges_and_repairs_ask_nothing(server, mode, stories):
    person = Person()
    async with connect(server, mode, elicitation_callback=person) as client:
        result = await client.call_tool(
            TOOL, create_arguments(stories["laptop_past_window_in_warranty"]["order_id"], kind="repair")
        )
    assert result.structured_content["outcome"] == "created" and person.seen == []


async def test_a_call_that_can_ask_nothing_hops_to_a_worker_thread_no_more_often_than_a_query(
    server, mode, stories, monkeypatch
):
    hops: list[object] = []
    real = anyio.to_thread.run_sync

    async def counted(*args: Any, **kwargs: Any) -> Any:
        hops.append(args[0])
        return await real(*args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    repair = create_arguments(stories["laptop_past_window_in_warranty"]["order_id"], kind="repair")
    refund = create_arguments(stories["cheap_tshirts_in_window"]["order_id"], refund_method="store_credit")
    per_call, created = [], []
    async with connect(server, mode, elicitation_callback=Person()) as with_forms, connect(server, mode) as without:
        for client, tool, arguments in ((with_forms, TOOL, repair), (without, TOOL, refund), (with_forms, "", {})):
            hops.clear()
            if tool:
                created.append((await client.call_tool(tool, arguments)).structured_content)
            else:
                await client.call_tool("after_sales_query_ticket", {"ticket_id": created[0]["ticket"]["ticket_id"]})
            per_call.append(len(hops))
    assert [outcome["outcome"] for outcome in created] == ["created", "created"]
    # One hop for the write at most (none on PostgreSQL, whose work runs on the event loop); a query needs no more
    # (none on SQLite either, whose reads run on the loop within their bound).
    assert per_call[0] == per_call[1] <= 1 and per_call[2] <= per_call[0]


async def test_a_repair_is_checked_and_written_in_one_transaction_with_no_separate_preflight(
    server, app, mode, stories, monkeypatch
):
    preflights: list[TicketRequest] = []
    real = creation.preflight

    def counted(uow: Any, caller: Any, request: TicketRequest, *rest: Any) -> Any:
        preflights.append(request)
        return real(uow, caller, request, *rest)

    monkeypatch.setattr(creation, "preflight", counted)
    order_id = stories["laptop_past_window_in_warranty"]["order_id"]
    async with connect(server, mode, elicitation_callback=Person()) as client:
        created = await client.call_tool(TOOL, create_arguments(order_id, kind="repair"))
        refused = await client.call_tool(TOOL, create_arguments(order_id, kind="repair"))
    assert preflights == []
    assert created.structured_content["outcome"] == "created"
    assert refused.is_error and refused.structured_content["error_code"] == "line_has_open_ticket"
    assert created.structured_content["ticket"]["ticket_id"] in refused.content[0].text


async def test_a_client_without_elicitation_is_asked_for_the_method_and_never_receives_a_form(
    server, app, mode, stories
):
    before = count_rows(app.engine)
    async with connect(server, mode) as client:
        result = await client.call_tool(TOOL, create_arguments(stories["vip_laptop_recent"]["order_id"]))
    assert result.is_error and "Ask the customer whether they want" in result.content[0].text
    assert "refund_method" in result.content[0].text and count_rows(app.engine) == before


async def test_a_client_without_forms_is_told_to_ask_not_refused_by_a_rule_and_the_answer_with_the_same_key_creates(
    server, app, mode, stories
):
    call = create_arguments(stories["cheap_tshirts_in_window"]["order_id"])
    async with connect(server, mode) as client:
        unasked = await client.call_tool(TOOL, call)
        answered = await client.call_tool(TOOL, {**call, "refund_method": "store_credit"})
    # The kind is what a harness acts on: a question the server could not ask is not a business-rule refusal.
    assert unasked.is_error and unasked.meta["aftersales/error"] == "input_needed"
    assert "the same idempotency_key" in unasked.content[0].text
    assert answered.structured_content["outcome"] == "created"
    assert answered.structured_content["ticket"]["refund"]["method"] == "store_credit"


async def test_without_elicitation_a_large_refund_is_created_and_the_timeline_says_the_host_confirmed(
    server, mode, stories
):
    async with connect(server, mode) as client:
        result = await client.call_tool(
            TOOL, create_arguments(stories["vip_laptop_recent"]["order_id"], refund_method="original_payment")
        )
    timeline = result.structured_content["ticket"]["timeline"]
    assert any("left to the host application" in event["note"] for event in timeline)


async def test_the_same_key_replays_the_same_ticket_and_creates_nothing(server, app, mode, stories):
    call = create_arguments(stories["cheap_tshirts_in_window"]["order_id"], refund_method="store_credit")
    async with connect(server, mode) as client:
        first = (await client.call_tool(TOOL, call)).structured_content
        count = count_rows(app.engine)
        again = (await client.call_tool(TOOL, call)).structured_content
    assert (again["outcome"], again["ticket"]["ticket_id"]) == ("replayed", first["ticket"]["ticket_id"])
    assert count_rows(app.engine) == count


async def test_both_questions_come_in_one_input_required_round(server, app, stories):
    call, before = create_arguments(stories["vip_laptop_recent"]["order_id"]), count_rows(app.engine)
    async with connect(server, elicitation_callback=Person()) as client:
        first = await client.session.call_tool(TOOL, call, allow_input_required=True)
        assert isinstance(first, InputRequiredResult) and first.result_type == "input_required"
        assert len(first.input_requests) == 2 and count_rows(app.engine) == before  # a round that asks creates nothing
        done = await second_round(client.session, TOOL, call, first)
    assert done.structured_content["outcome"] == "created" and count_rows(app.engine) == before + 1


async def first_round(client, call):
    first = await client.session.call_tool(TOOL, call, allow_input_required=True)
    assert isinstance(first, InputRequiredResult)
    return first


async def test_a_tampered_request_state_is_refused_with_invalid_params(server, app, stories):
    call = create_arguments(stories["vip_laptop_recent"]["order_id"])
    async with connect(server, elicitation_callback=Person()) as client:
        first = await first_round(client, call)
        state = first.request_state
        tampered = state[:-5] + ("A" if state[-5] != "A" else "B") + state[-4:]
        before = count_rows(app.engine)
        with pytest.raises(MCPError) as refused:
            await second_round(client.session, TOOL, call, first, state=tampered)
    assert refused.value.error.code == -32602 and count_rows(app.engine) == before


async def test_changing_the_quantity_between_rounds_is_refused_with_invalid_params(server, app, stories):
    call = create_arguments(stories["headphones_in_window_qty3"]["order_id"])
    async with connect(server, elicitation_callback=Person()) as client:
        first = await first_round(client, call)
        before = count_rows(app.engine)
        with pytest.raises(MCPError) as refused:
            await second_round(client.session, TOOL, call | {"quantity": 2}, first)
    assert refused.value.error.code == -32602 and count_rows(app.engine) == before


async def test_a_request_state_older_than_ten_minutes_is_refused(server, app, stories):
    call = create_arguments(stories["vip_laptop_recent"]["order_id"])
    with freeze_time("2026-12-01 10:00:00", real_asyncio=True) as frozen:
        async with connect(server, elicitation_callback=Person()) as client:
            first = await first_round(client, call)
            frozen.tick(timedelta(minutes=10, seconds=1))
            with pytest.raises(MCPError) as refused:
                await second_round(client.session, TOOL, call, first)
    assert refused.value.error.code == -32602


async def test_a_request_state_presented_by_another_caller_is_refused(server, app, stories):
    call = create_arguments(stories["vip_laptop_recent"]["order_id"])
    async with connect(server, elicitation_callback=Person()) as client:
        first = await first_round(client, call)
    async with connect(
        server, caller=Caller("mallory-bot", frozenset(ALL_SCOPES)), elicitation_callback=Person()
    ) as thief:
        with pytest.raises(MCPError) as refused:
            await second_round(thief.session, TOOL, call, first)
    assert refused.value.error.code == -32602

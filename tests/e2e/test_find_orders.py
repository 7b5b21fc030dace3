"""after_sales_find_orders through the real MCP client: in memory and over HTTP, on both protocol revisions."""

import json

import pytest
from jsonschema import Draft202012Validator
from sqlalchemy import select

from aftersales.domain.callers import Caller
from aftersales.storage.models import ToolCall
from tests.support.clients import connect, connect_http, leaks

pytestmark = pytest.mark.anyio
TOOL = "after_sales_find_orders"


async def listed_tool(client):
    [tool] = [t for t in (await client.list_tools()).tools if t.name == TOOL]
    return tool


async def test_the_tool_is_listed_read_only_with_three_optional_keys_a_bounded_limit_and_a_cursor(server, mode):
    async with connect(server, mode) as client:
        tool = await listed_tool(client)
    schema = tool.input_schema
    assert list(schema["properties"]) == ["email", "phone", "customer_id", "limit", "cursor"]
    assert schema.get("required", []) == [] and schema["additionalProperties"] is False
    limit = schema["properties"]["limit"]
    assert (limit["minimum"], limit["maximum"], limit["default"]) == (1, 50, 10)
    assert tool.annotations.read_only_hint is True and tool.annotations.idempotent_hint is True
    assert tool.output_schema["required"] == ["orders", "next_cursor", "next_step"]
    assert "never tells anyone whether an email or phone is registered" in tool.description


async def test_an_email_finds_the_orders_structured_and_as_the_same_json_text(server, mode, stories):
    story = stories["email_only_headphones"]
    async with connect(server, mode) as client:
        tool = await listed_tool(client)
        result = await client.call_tool(TOOL, {"email": story["email"]})
    assert not result.is_error
    Draft202012Validator(tool.output_schema).validate(result.structured_content)
    assert json.loads(result.content[0].text) == result.structured_content
    orders = result.structured_content["orders"]
    assert orders[0]["order_id"] == story["order_id"] and len(orders) == 3
    assert orders[0]["items"] == "line 1: Sony WH-1000XM5 Headphones x1" and orders[0]["status"] == "delivered"


async def test_a_spoken_phone_number_pages_through_the_orders_with_the_cursor(server, mode, stories):
    story = stories["same_product_recent"]
    spoken = "0086 " + story["phone"].removeprefix("+86 ")
    async with connect(server, mode) as client:
        first = (await client.call_tool(TOOL, {"phone": spoken, "limit": 1})).structured_content
        second = await client.call_tool(TOOL, {"phone": spoken, "limit": 1, "cursor": first["next_cursor"]})
    assert [o["order_id"] for o in first["orders"]] == [story["order_id"]]
    assert [o["order_id"] for o in second.structured_content["orders"]] == [stories["same_product_older"]["order_id"]]
    assert second.structured_content["next_cursor"] is None


@pytest.mark.http
async def test_over_http_a_customer_id_lists_the_orders(http_url, token, mode, stories):
    story = stories["vip_laptop_recent"]
    async with connect_http(http_url, token, mode) as client:
        result = await client.call_tool(TOOL, {"customer_id": story["customer_id"], "limit": 2})
    assert result.structured_content["orders"][0]["order_id"] == story["order_id"]
    assert result.structured_content["next_cursor"] is not None


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({}, "was called without any of email, phone or customer_id."),
        (
            {"email": "a@b.cn", "customer_id": "C-00001"},
            'with 2 of email, phone or customer_id at once (email "a@b.cn"',
        ),
        ({"phone": "+1 415 555 0100"}, 'phone "+1 415 555 0100" is not a mobile number an account can hold.'),
        ({"email": "a@b.cn", "cursor": "bm90LWEtY3Vyc29yLWF0LWFsbA"}, "is not a cursor this server issued"),
    ],
)
async def test_keys_that_cannot_be_used_are_argument_errors_in_three_parts(app, server, mode, arguments, words):
    async with connect(server, mode) as client:
        result = await client.call_tool(TOOL, arguments)
    text = result.content[0].text
    assert result.is_error and result.meta["aftersales/error"] == "invalid_arguments"
    assert words in text and ("Call again" in text or "Ask the customer" in text) and leaks(text) == []
    app.audit.flush()
    with app.uow() as uow:
        valid = uow.session.scalars(select(ToolCall.arguments_valid).where(ToolCall.tool == TOOL)).all()
    assert valid == [False]


async def test_an_unknown_email_answers_like_a_customer_without_orders(server, mode, baseline):
    with_orders = {o["customer_id"] for o in baseline.tables["orders"]}
    idle = next(c for c in baseline.tables["customers"] if c["id"] not in with_orders)
    texts = []
    async with connect(server, mode) as client:
        for email in (idle["email"], "nobody.at.all@example.com"):
            result = await client.call_tool(TOOL, {"email": email})
            assert result.is_error and result.meta["aftersales/error"] == "not_found"
            texts.append(result.content[0].text.replace(email, "<email>"))
    assert texts[0] == texts[1] and "ask the customer for another email address" in texts[0].lower()


async def test_a_caller_without_the_read_scope_is_refused_naming_it(server, stories):
    async with connect(server, caller=Caller("nobody", frozenset())) as client:
        result = await client.call_tool(TOOL, {"email": stories["vip_laptop_recent"]["email"]})
    assert result.is_error and f"may not use {TOOL}: its token lacks the scope tickets:read" in result.content[0].text

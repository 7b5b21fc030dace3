"""A demo column's client, without a server: what it answers for the person."""

from datetime import timedelta
from types import SimpleNamespace

import anyio
import pytest
from mcp_types import ElicitRequestFormParams, ElicitRequestURLParams

from aftersales.demo.cases import BY_KEY
from aftersales.demo.column import LEGACY, Column, question
from aftersales.demo.stage import Answer, Run
from aftersales.demo.worlds import Endpoint

pytestmark = pytest.mark.anyio
PAGE = ElicitRequestURLParams(message="Give the account", url="https://shop.example/payout/abc", elicitation_id="e-1")


async def test_a_url_elicitation_shows_the_person_its_url_and_answers_accept_without_content_once_they_open_it():
    endpoint = Endpoint("http://127.0.0.1:9/mcp", "token", "demo-bot", "w-1a2b3c4d", [], timedelta(minutes=10))
    run = Run(1, "method", [LEGACY])
    column = Column(run, LEGACY, endpoint, BY_KEY["method"], hold_seconds=0)
    answers = []
    async with anyio.create_task_group() as group:

        async def person() -> None:
            answers.append(await column.person(SimpleNamespace(request_id=7), PAGE))  # type: ignore[arg-type]

        group.start_soon(person)
        with anyio.fail_after(5):
            while not any(event["type"] == "ask" for event in run.events):
                await run.changed()
        asked = next(event for event in run.events if event["type"] == "ask")
        assert asked["questions"][0] == {
            "key": "elicitation/create id 7",
            "mode": "url",
            "message": "Give the account",
            "url": "https://shop.example/payout/abc",
            "elicitation_id": "e-1",
        }
        assert run.answer(asked["ask"], Answer("accept"))
    assert answers[0].action == "accept" and answers[0].content is None


def test_a_form_question_carries_its_schema_and_a_url_question_its_address():
    form = ElicitRequestFormParams(message="Where?", requested_schema={"type": "object", "properties": {}})
    assert question("q", form) == {"key": "q", "mode": "form", "message": "Where?", "schema": form.requested_schema}
    assert question("q", PAGE)["url"] == "https://shop.example/payout/abc"

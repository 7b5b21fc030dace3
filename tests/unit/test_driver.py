"""A demo column's client, without a server: what it answers for the person."""

from datetime import timedelta

import pytest
from mcp_types import INVALID_PARAMS, ElicitRequestURLParams, ErrorData

from aftersales.demo.cases import BY_KEY
from aftersales.demo.driver import LEGACY, Column
from aftersales.demo.stage import Run
from aftersales.demo.worlds import Endpoint

pytestmark = pytest.mark.anyio


async def test_a_url_elicitation_is_refused_without_asking_the_person_since_the_page_shows_forms_only():
    endpoint = Endpoint("http://127.0.0.1:9/mcp", "token", "demo-bot", "w-1a2b3c4d", [], timedelta(minutes=10))
    column = Column(Run(1, "method", [LEGACY]), LEGACY, endpoint, BY_KEY["method"], hold_seconds=0)
    visit = ElicitRequestURLParams(message="Pay here", url="https://shop.example/pay", elicitation_id="e-1")
    refused = await column.person(None, visit)  # the context is read only for a form
    assert isinstance(refused, ErrorData) and refused.code == INVALID_PARAMS
    assert "form elicitations only" in refused.message and column.asked == 0

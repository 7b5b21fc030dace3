"""The TypeScript MCP client v2, an implementation independent of the server's SDK, against uvicorn over HTTP.

The client runs on Node 22 (tests/support/node.py installs both once); small scripts in tests/e2e/ts drive it
and print JSON, including a log of what each POST sent and got back, so these tests can tell an `input_required`
round (2026-07-28) from an `elicitation/create` request sent mid-call (2025-11-25).
"""

import json
import uuid

import pytest

from tests.support import ROOT, node
from tests.support.database import count_rows

pytestmark = pytest.mark.http
MODERN, LEGACY = "2026-07-28", "2025-11-25"
SNAPSHOT = ROOT / "tests" / "snapshots" / "tools_list.json"
COMPLETE, INPUT_REQUIRED = {"result": "complete"}, {"result": "input_required"}
ELICIT = {"method": "elicitation/create"}


@pytest.fixture(params=[MODERN, LEGACY])
def revision(request: pytest.FixtureRequest) -> str:
    """The revision the TypeScript client speaks: negotiated ('auto' mode), or the initialize handshake."""
    return request.param


@pytest.fixture
def ts_token(issue_token) -> str:
    return issue_token("ts-client")


def a_return(http_url: str, revision: str, order_id: str, person: dict) -> dict:
    """What estimate_and_create.mjs is given: a defective return of line 1 under a fresh key, and how to answer."""
    return {
        "url": http_url,
        "revision": revision,
        "order_id": order_id,
        "reason_code": "defective",
        "idempotency_key": f"ts-client-{uuid.uuid4().hex[:12]}",
        "person": person,
    }


def tool_calls(wire: list[dict]) -> list[list[dict]]:
    """What came back for each tools/call POST, in order."""
    return [exchange["received"] for exchange in wire if exchange["sent"] == [{"method": "tools/call"}]]


def test_the_typescript_client_negotiates_the_revision_lists_the_tools_and_reads_a_ticket(
    http_url, ts_token, revision, stories
):
    ticket_id = stories["ticket_in_repair"]["ticket_id"]
    out = node.run_script(
        "list_and_query.mjs", {"url": http_url, "revision": revision, "ticket_id": ticket_id}, ts_token
    )
    assert (out["protocolVersion"], out["era"]) == ((MODERN, "modern") if revision == MODERN else (LEGACY, "legacy"))
    assert out["wire"][0]["sent"] == [{"method": "server/discover" if revision == MODERN else "initialize"}]
    assert out["tools"] == json.loads(SNAPSHOT.read_text())  # the same tools, schemas and order the SDK client sees
    query = out["query"]  # the TypeScript client has validated structuredContent against the outputSchema
    assert not query["isError"] and query["structuredContent"]["ticket_id"] == ticket_id
    assert query["structuredContent"]["stage"] == "repair" and json.loads(query["text"]) == query["structuredContent"]
    assert out["unknownTool"]["code"] == -32602 and "after_sales_query_ticket" in out["unknownTool"]["message"]


def test_the_typescript_client_estimates_answers_the_forms_and_the_same_key_replays_the_ticket(
    http_url, ts_token, revision, app, stories
):
    before = count_rows(app.engine)
    person = {"action": "accept", "method": "original_payment", "confirm": True}
    given = a_return(http_url, revision, stories["vip_laptop_recent"]["order_id"], person)
    out = node.run_script("estimate_and_create.mjs", given, ts_token)
    estimate, created, again = (out[k]["structuredContent"] for k in ("estimate", "created", "again"))
    assert out["protocolVersion"] == revision and uuid.UUID(estimate["quote_id"]).version == 4
    assert [form["fields"] for form in out["forms"]] == [["refund_method"], ["confirm"]] and out["formsOnCreate"] == 2
    titles = [option["title"] for option in out["forms"][0]["schema"]["properties"]["refund_method"]["oneOf"]]
    assert titles == ["Back to the card or wallet used to pay", "Store credit, usable right away"]
    assert "¥12,999.00" in out["forms"][1]["message"] and "ThinkPad" in out["forms"][1]["message"]
    assert created["outcome"] == "created" and created["ticket"]["refund"]["method"] == "original_payment"
    assert created["ticket"]["refund"]["amount"] == estimate["total"]
    assert (again["outcome"], again["ticket"]["ticket_id"]) == ("replayed", created["ticket"]["ticket_id"])
    assert count_rows(app.engine) == before + 1
    if revision == MODERN:  # one input_required round with both questions, answered by the client's retry
        assert tool_calls(out["wire"]) == [[COMPLETE], [INPUT_REQUIRED], [COMPLETE], [COMPLETE]]
    else:  # the server asks with elicitation/create requests on the call's own stream
        assert tool_calls(out["wire"]) == [[COMPLETE], [ELICIT, ELICIT, COMPLETE], [COMPLETE]]


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_declining_or_cancelling_in_the_typescript_client_creates_nothing_and_says_not_to_retry(
    http_url, ts_token, revision, app, stories, action
):
    before = count_rows(app.engine)
    given = a_return(http_url, revision, stories["cheap_tshirts_in_window"]["order_id"], {"action": action})
    out = node.run_script("estimate_and_create.mjs", given, ts_token)
    for answer in (out["created"], out["again"]):  # nothing was stored, so the same key asks again
        outcome = answer["structuredContent"]
        assert not answer["isError"] and (outcome["outcome"], outcome["ticket"]) == ("not_created", None)
        assert (
            action in outcome["reason"]
            and "Do not retry unless the customer changes their mind" in outcome["next_step"]
        )
    assert [form["fields"] for form in out["forms"]] == [["refund_method"], ["refund_method"]]
    assert count_rows(app.engine) == before
    asked = [INPUT_REQUIRED, COMPLETE] if revision == MODERN else [ELICIT, COMPLETE]
    calls = tool_calls(out["wire"])
    assert calls[0] == [COMPLETE] and [r for call in calls[1:] for r in call] == asked + asked

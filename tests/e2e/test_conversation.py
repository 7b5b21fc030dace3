"""Conversation trials end to end: the customer channel over HTTP, the plugin's customer object, `eval --mode`.

The customer is tests.support.customers.FactCustomer, so these tests hold whatever engine ships as the default.
"""

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import jsonschema
import pytest

from aftersales.testing import schemas
from aftersales.testing.conversation.client import ChannelRefused
from aftersales.testing.fixtures import AgentTrials
from aftersales.testing.hosts.in_process import Host
from aftersales.testing.hosts.interface import TrialWorld
from aftersales.testing.loader import load
from aftersales.testing.runner import Agent, run_trial
from tests.support.customers import BrokenCustomer, FactCustomer
from tests.support.harness import hosting

TASK = load("refund-tshirts-store-credit")[0]
ORDER = str(TASK.customer.knows["order_id"])
ENGINE = "tests.support.customers:FactCustomer"


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory):
    with hosting(tmp_path_factory.mktemp("conversation")) as started:
        yield started


@pytest.fixture
def trial(host: Host):
    opened = host.open_trial(TASK)
    _, url = host.converse(opened, FactCustomer(TASK.customer), 12)
    yield opened, url
    host.close_trial(opened)


def post(url: str, token: str, **options: Any) -> httpx2.Response:
    """A raw request to the channel, as curl would send it."""
    return httpx2.post(url, headers={"Authorization": f"Bearer {token}"}, timeout=30, **options)


async def estimate(opened: TrialWorld) -> None:
    """One tool call in the trial's world, over HTTP like any agent."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {opened.token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(opened.url, http_client=http)) as client,
    ):
        await client.call_tool("after_sales_estimate_refund", {"order_id": ORDER, "line_no": 1})


def timeline(entries: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [
        (entry["speaker"], entry["text"]) if entry.get("type") == "turn" else ("call", entry["tool"])
        for entry in entries
    ]


def test_turns_and_tool_calls_form_one_timeline_in_the_worlds_trace(host: Host, trial):
    opened, url = trial
    answer = post(url, opened.token, json={"message": "Which order is this about?"})
    assert answer.status_code == 200
    assert answer.json() == {
        "reply": f"My order id is {ORDER}.",
        "ended": False,
        "reason": None,
        "turn": 1,
        "turns_left": 11,
    }
    anyio.run(estimate, opened)
    assert post(url, opened.token, json={"message": "Thanks, it's done."}).json()["ended"]
    trace = host.trace(opened)
    assert timeline(trace) == [
        ("customer", TASK.customer.opening),
        ("agent", "Which order is this about?"),
        ("customer", f"My order id is {ORDER}."),
        ("call", "after_sales_estimate_refund"),
        ("agent", "Thanks, it's done."),
        ("customer", "Thanks, bye."),
    ]
    assert [entry["seq"] for entry in trace] == [1, 2, 3, 4, 5, 6]
    assert trace[2]["revealed"] == ["order_id"] and trace[2]["engine"] == "facts"
    assert (trace[5]["ended"], trace[5]["reason"]) == (True, "need_met")
    validator = jsonschema.Draft202012Validator(schemas.load("trajectory.schema.json"))
    for entry in trace:
        validator.validate(entry)


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"content": b"order?"}, 400, "invalid_json"),
        ({"json": ["order?"]}, 400, "missing_message"),
        ({"json": {"text": "order?"}}, 400, "missing_message"),
        ({"json": {"message": ""}}, 400, "empty_message"),
        ({"json": {"message": "order " * 17_000}}, 413, "message_too_long"),  # about 100 kB
    ],
)
def test_bad_input_gets_its_error_in_three_parts_and_changes_nothing(host: Host, trial, body, status, code):
    opened, url = trial
    before = host.trace(opened)
    answer = post(url, opened.token, **body)
    assert (answer.status_code, answer.json()["error"]) == (status, code)
    assert answer.json()["error_description"].count(".") >= 3  # what was wrong, the rule, what to do
    assert host.trace(opened) == before


def test_another_trials_token_a_bad_token_or_none_is_401_and_changes_nothing(host: Host, trial):
    opened, url = trial
    other = host.open_trial(TASK)
    try:
        before = host.trace(opened)
        for headers in ({"Authorization": f"Bearer {other.token}"}, {"Authorization": "Bearer nonsense"}, {}):
            answer = httpx2.post(url, headers=headers, json={"message": "order?"}, timeout=30)
            assert (answer.status_code, answer.json()["error"]) == (401, "invalid_token"), headers
        assert "another trial" in post(url, other.token, json={"message": "order?"}).json()["error_description"]
        assert host.trace(opened) == before
        no_conversation = post(url.replace(opened.id, other.id), other.token, json={"message": "order?"})
        assert (no_conversation.status_code, no_conversation.json()["error"]) == (404, "no_conversation")
    finally:
        host.close_trial(other)


def test_a_message_after_the_customer_ended_is_409_and_changes_nothing(host: Host, trial):
    opened, url = trial
    assert post(url, opened.token, json={"message": "Thank you!"}).json()["reason"] == "need_met"
    before = host.trace(opened)
    answer = post(url, opened.token, json={"message": "One more thing"})
    assert (answer.status_code, answer.json()["error"]) == (409, "conversation_ended")
    assert host.trace(opened) == before


def test_the_plugins_customer_object_talks_over_the_channel(host: Host):
    runs: list[Any] = []

    def agent(world: Any, brief: Any) -> str:
        assert brief.opening == TASK.customer.opening and "knows" not in brief.model_dump_json()
        reply = brief.customer.say("What is the order number?")
        anyio.run(estimate, world._opened)
        brief.customer.say("Thanks!")
        with pytest.raises(ChannelRefused, match="409 conversation_ended"):
            brief.customer.say("Still there?")
        return reply.text

    run = AgentTrials(host, runs.append).run(
        TASK, agent, mode="conversation", customer=lambda task: FactCustomer(task.customer)
    )
    assert run.verdicts == ["agent"]  # it never opened the ticket
    assert runs == [run]


def test_a_failing_customer_engine_makes_the_trial_an_infrastructure_verdict(host: Host, tmp_path: Path):
    (tmp_path / "briefs").mkdir()
    (tmp_path / "trajectories").mkdir()
    agent = Agent(f"{sys.executable} {Path(__file__).parent / 'conversation_agent.py'}", mode="conversation")
    result = run_trial(host, agent, TASK, 1, tmp_path, lambda task, name, trial: BrokenCustomer(task.customer))
    assert result.verdict == "infrastructure" and "the simulated customer failed" in result.infrastructure[0]


def test_eval_in_conversation_mode_hands_the_agent_the_channel_and_the_opening_only(host: Host, tmp_path: Path):
    (tmp_path / "briefs").mkdir()
    (tmp_path / "trajectories").mkdir()
    agent = Agent(f"{sys.executable} {Path(__file__).parent / 'conversation_agent.py'}", mode="conversation")
    result = run_trial(host, agent, TASK, 1, tmp_path, lambda task, name, trial: FactCustomer(task.customer))
    brief = json.loads((tmp_path / "briefs" / f"{TASK.id}.1.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schemas.load("conversation-brief.schema.json")).validate(brief)
    assert set(brief) == {"format", "task_id", "title", "trial", "world_time", "opening", "forms", "form_answers"}
    assert f"My order id is {ORDER}." in result.answer
    lines = (tmp_path / result.trajectory).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["speaker"] for line in lines] == ["customer", "agent", "customer", "agent", "customer"]
    assert result.verdict == "customer_miss"  # its second message meant nothing to the customer, and it failed


def test_the_plugin_replays_the_customer_of_an_eval_run_for_an_agent_that_says_the_same(host: Host, tmp_path: Path):
    (tmp_path / "briefs").mkdir()
    (tmp_path / "trajectories").mkdir()
    agent = Agent(f"{sys.executable} {Path(__file__).parent / 'conversation_agent.py'}", mode="conversation")
    recorded = run_trial(host, agent, TASK, 1, tmp_path, lambda task, name, trial: FactCustomer(task.customer))
    replayed: list[dict[str, Any]] = []

    def same(world: Any, brief: Any) -> str:
        brief.customer.say("Which order is this about?")
        brief.customer.say("Lovely  weather?")  # white space apart, what the recorded agent said
        replayed.extend(world.trace())
        return ""

    run = AgentTrials(host, [].append).run(TASK, same, mode="conversation", customer=f"replay:{tmp_path}")
    then = [json.loads(line) for line in (tmp_path / recorded.trajectory).read_text(encoding="utf-8").splitlines()]
    assert [turn["engine"] for turn in replayed] == ["facts"] * 5  # the recorded engine's turns, said again
    assert [turn["text"] for turn in replayed[::2]] == [turn["text"] for turn in then[::2]]
    assert run.verdicts == [recorded.verdict]
    with pytest.raises(ValueError, match=r"no recorded trial refund-tshirts-store-credit\.2"):
        AgentTrials(host, [].append).run(TASK, same, trials=2, mode="conversation", customer=f"replay:{tmp_path}")

"""The LLM customer end to end, with deterministic stand-ins for its model: no provider, no key, no network.

The stand-in (aftersales.testing.conversation.stand_in:scripted) answers as the scripted customer would, through the
LLM engine's whole path: its prompt, the conversation history, the structured reply, usage in the trace and the
report. tests.support.customer_models break the prompt on purpose (a fact given unasked, an ending too soon).
"""

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from aftersales.testing import schemas
from aftersales.testing.conversation.llm_customer import PROMPT_VERSION
from aftersales.testing.fixtures import AgentTrials, TestWorld
from aftersales.testing.hosts.in_process import Host
from aftersales.testing.loader import load
from aftersales.testing.reference import replay
from aftersales.testing.runner import Agent, run_trial
from tests.support.evals import run
from tests.support.harness import hosting

TASK = load("conv-damaged-tshirts-keep-refund-only")[0]
STAND_IN = "function:aftersales.testing.conversation.stand_in:scripted"
SCRIPTED_AGENT = "python examples/scripted_agent.py"


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory):
    with hosting(tmp_path_factory.mktemp("llm-customer")) as started:
        yield started


def customer_model(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Play the customer with the named stand-in (a function of tests.support.customer_models, or the shipped one)."""
    model = name if name.startswith("function:") else f"function:tests.support.customer_models:{name}"
    monkeypatch.setenv("AFTERSALES_CUSTOMER_MODEL", model)


def turns(trace: list[dict[str, Any]], speaker: str = "customer") -> list[dict[str, Any]]:
    return [entry for entry in trace if entry.get("type") == "turn" and entry["speaker"] == speaker]


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
@pytest.mark.parametrize("forms", ["world", "client"])
def test_a_conversation_with_the_llm_customer_passes_on_both_revisions_and_both_form_modes(
    host: Host, monkeypatch: pytest.MonkeyPatch, protocol: str, forms: str
):
    customer_model(monkeypatch, STAND_IN)
    traces: list[list[dict[str, Any]]] = []

    async def agent(world: TestWorld, brief: Any) -> str:
        async def say(text: str) -> str:
            return str(brief.customer.say(text).text)

        steps = await replay(TASK, world.url, world.token, say, protocol)
        traces.append(world.trace())
        return " ".join(step.text for step in steps)

    trials = AgentTrials(host, lambda run: None).run(TASK, agent, mode="conversation", customer="llm", forms=forms)
    assert trials.verdicts == ["pass"]
    [trace] = traces
    assert {entry["protocol"] for entry in trace if entry.get("type") != "turn"} == {
        "2025-11-25" if protocol == "legacy" else "2026-07-28"
    }
    replies = turns(trace)[1:]  # the opening is the task's, said by no model
    assert replies and {reply["engine"] for reply in replies} == {"llm"}
    assert {reply["usage"]["prompt_version"] for reply in replies} == {PROMPT_VERSION}
    assert all(reply["usage"]["input_tokens"] > 0 and reply["usage"]["requests"] == 1 for reply in replies)
    validator = jsonschema.Draft202012Validator(schemas.load("trajectory.schema.json"))
    for entry in trace:
        validator.validate(entry)


def test_the_report_sums_the_customers_tokens_and_validates_against_its_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    customer_model(monkeypatch, STAND_IN)
    tasks = ["conv-damaged-tshirts-keep-refund-only", "conv-refusal-sunscreen-not-returnable"]
    code, report = run(tmp_path, SCRIPTED_AGENT, "--mode", "conversation", "--customer", "llm", tasks=tasks)
    assert code == 0, report
    jsonschema.Draft202012Validator(schemas.load("report.schema.json")).validate(report)
    trials = [trial for task in report["tasks"] for trial in task["results"]]
    assert report["customer"] == "llm"
    for part in ("requests", "input_tokens", "output_tokens"):
        assert report["customer_usage"][part] == sum(trial["customer_usage"][part] for trial in trials) > 0
    for trial in trials:  # each trial's spend is what its trajectory's replies say they cost
        lines = (tmp_path / trial["trajectory"]).read_text(encoding="utf-8").splitlines()
        used = [line["usage"] for line in map(json.loads, lines) if line.get("usage")]
        assert trial["customer_usage"]["input_tokens"] == sum(usage["input_tokens"] for usage in used)
    assert report["customer_usage"]["cost_usd"] is None  # a stand-in has no price: unknown, not zero


def test_a_fact_the_customer_gives_unasked_is_recorded_as_a_customer_miss(
    host: Host, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    customer_model(monkeypatch, "leaks_the_email")
    result = trial(host, tmp_path)
    email = TASK.customer.knows["email"]
    assert result.misses and all(f"gave email ({email}) without being asked" in miss for miss in result.misses)
    assert result.misses[0].startswith("turn #3:")  # the first reply to the agent: the opening is the task's


def test_a_customer_that_ends_while_the_agent_is_asking_is_a_customer_miss_not_the_agents_failure(
    host: Host, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    customer_model(monkeypatch, "ends_at_once")
    result = trial(host, tmp_path)
    assert not result.passed and result.verdict == "customer_miss"
    assert "ended the conversation (need_met) while the agent was asking for" in result.misses[0]


def trial(host: Host, out: Path) -> Any:
    (out / "briefs").mkdir(exist_ok=True)
    (out / "trajectories").mkdir(exist_ok=True)
    return run_trial(host, Agent(SCRIPTED_AGENT, mode="conversation", customer="llm"), TASK, 1, out)


@pytest.mark.parametrize(
    ("variables", "named"),
    [
        ({}, "AFTERSALES_CUSTOMER_MODEL"),
        ({"AFTERSALES_CUSTOMER_MODEL": "openai:gpt-4.1"}, "AFTERSALES_CUSTOMER_API_KEY"),
        (
            {
                "AFTERSALES_CUSTOMER_MODEL": "some-model",
                "AFTERSALES_CUSTOMER_BASE_URL": "http://127.0.0.1:9/v1",
                "AFTERSALES_CUSTOMER_API_KEY": "k",
            },
            "AFTERSALES_CUSTOMER_BASE_URL",
        ),
        ({"AFTERSALES_CUSTOMER_MODEL": "function:tests.support.customer_models:nothing"}, "AFTERSALES_CUSTOMER_MODEL"),
    ],
    ids=["no-model", "no-key", "unreachable", "no-such-function"],
)
def test_a_customer_model_that_cannot_be_used_is_one_line_naming_the_setting_before_any_world(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], variables, named
):
    from aftersales.cli.main import main

    for name in ("AFTERSALES_CUSTOMER_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    out = tmp_path / "out"
    words = ["eval", "--agent", "true", "--tasks", TASK.id, "--mode", "conversation", "--customer", "llm"]
    assert main([*words, "--out", str(out)]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and named in error and "Traceback" not in error
    assert not out.exists()  # refused before the run made anything

"""The reference LLM agent (examples/llm_agent) under `aftersales eval`, with pydantic-ai's deterministic test model.

The test model plays each task's reference solution through the real agent: the server's prompt as instructions,
its tools through pydantic-ai's MCP toolset, the customer through the agent's own tool. One run each for brief and
conversation mode on both protocol revisions and both form modes: ten shipped tasks in all, one trial each, as every
agent process costs about 4 s of CPU (pydantic-ai's import, most of it).
"""

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from aftersales.testing.brief import brief_for
from aftersales.testing.loader import load
from tests.support import ROOT
from tests.support.evals import failed, run, trajectory
from tests.support.free_ports import free_port

AGENT = f"{sys.executable} {ROOT / 'examples' / 'llm_agent'}"
# (mode, protocol, forms): tasks, the first of which asks a form that the customer accepts.
RUNS = {
    ("brief", "2026-07-28", "world"): [
        "refund-tshirts-store-credit",
        "retry-after-timeout-same-key",
        "status-awaiting-return",
    ],
    ("brief", "2025-11-25", "client"): [
        "refund-tshirts-original-payment",
        "refund-tshirts-method-declined",
        "exchange-running-shoes",
    ],
    ("conversation", "2026-07-28", "client"): [
        "conv-cancel-awaiting-return-confirmed",
        "conv-wrong-order-number-airpods",
    ],
    ("conversation", "2025-11-25", "world"): [
        "quote-expired-clock-moved",
        "conv-defective-air-fryer-no-fee",
    ],
}
VIA = {"2026-07-28": "input_required", "2025-11-25": "elicitation/create"}
ANSWERED_BY = {"world": "script", "client": "client"}


@pytest.mark.parametrize(("mode", "protocol", "forms"), list(RUNS))
def test_the_reference_agent_with_its_test_model_passes_shipped_tasks_on_each_revision_and_form_mode(
    tmp_path: Path, mode: str, protocol: str, forms: str
):
    usage = tmp_path / "usage.jsonl"
    agent = f"{AGENT} --model test --protocol {protocol} --usage-log {usage}"
    tasks = RUNS[(mode, protocol, forms)]
    code, report = run(tmp_path / "out", agent, "--mode", mode, "--forms", forms, tasks=tasks)
    assert code == 0, failed(report)
    runs = [json.loads(line) for line in usage.read_text(encoding="utf-8").splitlines()]
    assert sorted(line["task_id"] for line in runs) == sorted(tasks)
    assert {line["protocol"] for line in runs} == {protocol}
    assert all(line["input_tokens"] > 0 and line["output_tokens"] > 0 for line in runs)
    entries = trajectory(tmp_path / "out", tasks[0])
    # Asked on the revision's way, answered by whoever the form mode says (on 2026-07-28 the round the client
    # answers follows the one that asked, which the trace shows unanswered).
    rounds = [asked for entry in entries for asked in entry.get("rounds", []) if asked["answered_by"]]
    assert rounds and {(asked["via"], asked["answered_by"]) for asked in rounds} == {
        (VIA[protocol], ANSWERED_BY[forms])
    }
    said = [entry for entry in entries if entry.get("type") == "turn" and entry["speaker"] == "agent"]
    assert bool(said) == (mode == "conversation")  # it talks to the customer only in a conversation


@pytest.fixture
def brief(tmp_path: Path) -> Path:
    """A brief file of a shipped task."""
    path = tmp_path / "brief.json"
    path.write_text(brief_for(load("refund-tshirts-store-credit")[0], 1, "world").model_dump_json(), encoding="utf-8")
    return path


@pytest.fixture
def silent_provider() -> Iterator[str]:
    """An endpoint that takes connections and never answers."""
    with socket.create_server(("127.0.0.1", 0)) as listening:
        yield f"http://127.0.0.1:{listening.getsockname()[1]}/v1"


def agent_alone(brief: Path, *options: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The agent run with a brief and no world: it must stop before connecting to one."""
    variables = {
        "PATH": "/usr/bin:/bin",
        "AFTERSALES_MCP_URL": f"http://127.0.0.1:{free_port()}/mcp",
        "AFTERSALES_TOKEN": "unused",
        "AFTERSALES_TASK_FILE": str(brief),
        **env,
    }
    command = [sys.executable, str(ROOT / "examples" / "llm_agent"), *options]
    return subprocess.run(command, env=variables, capture_output=True, text=True, timeout=60, check=False)


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    """The agent's error, which must be one line on stderr, with nothing on stdout."""
    assert (result.returncode, result.stdout) == (2, "")
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_a_model_without_an_api_key_stops_the_agent_with_one_line_naming_the_setting(brief: Path):
    line = one_line(agent_alone(brief, "--model", "openai:gpt-4.1"))
    assert line.startswith("llm_agent: no API key for OpenAI") and "AFTERSALES_AGENT_API_KEY" in line


def test_an_endpoint_that_does_not_answer_stops_the_agent_with_one_line_naming_the_timeout(
    tmp_path: Path, silent_provider: str, monkeypatch: pytest.MonkeyPatch
):
    # A real world to connect to, so it gets as far as asking the model; the harness passes its environment on.
    monkeypatch.setenv("AFTERSALES_AGENT_API_KEY", "any")
    code, report = run(
        tmp_path,
        f"{AGENT} --model some-model --base-url {silent_provider} --timeout 0.5 2> {tmp_path / 'stderr'}",
        tasks=["status-awaiting-return"],
    )
    (result,) = report["tasks"][0]["results"]
    assert (code, result["exit_code"]) == (1, 2)
    lines = (tmp_path / "stderr").read_text(encoding="utf-8").strip().splitlines()
    assert len(lines) == 1, lines
    assert "did not answer within 0.5 s" in lines[0] and "AFTERSALES_AGENT_TIMEOUT" in lines[0]

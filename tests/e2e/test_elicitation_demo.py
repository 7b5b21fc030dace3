"""examples/elicitation_demo.py as a person runs it: over HTTP, answering on standard input."""

import importlib.util
import os
import subprocess
import sys

import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from sqlalchemy import select

from aftersales.storage.models import Ticket
from tests.support import ROOT

pytestmark = pytest.mark.http
DEMO = ROOT / "examples" / "elicitation_demo.py"


def demo(http_url: str, token: str, answers: str, *flags: str) -> subprocess.CompletedProcess[str]:
    """Run the demo with `answers` typed in, against the test server named the way the README says."""
    env = {**os.environ, "AFTERSALES_TOKEN": token, "AFTERSALES_MCP_URL": f"{http_url}/mcp"}
    return subprocess.run(
        [sys.executable, DEMO, *flags], input=answers, env=env, capture_output=True, text=True, timeout=120
    )


def open_lines(app) -> set[tuple[str, int]]:
    with app.uow() as uow:
        return set(uow.session.execute(select(Ticket.order_id, Ticket.line_no).where(Ticket.created_by != "seed")))


def test_the_demo_asks_again_until_the_menu_answer_is_valid_then_creates_the_ticket(http_url, token, app):
    run = demo(http_url, token, "5\nx\n2\ny\n")
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("Please answer one of: 1, 2, c, d.") == 2
    assert "refunding ¥12,999.00? Please confirm" in run.stdout and '"outcome": "created"' in run.stdout
    assert '"method": "store_credit"' in run.stdout and "Traceback" not in run.stderr
    assert open_lines(app) == {("O-2026-001423", 1)}


def test_run_again_the_demo_finds_another_line_without_an_open_ticket(http_url, token, app):
    first = demo(http_url, token, "1\ny\n")
    second = demo(http_url, token, "1\ny\n", "--legacy")
    assert first.returncode == second.returncode == 0, first.stderr + second.stderr
    assert "protocol 2025-11-25" in second.stdout and '"outcome": "created"' in second.stdout
    lines = open_lines(app)
    assert len(lines) == 2 and ("O-2026-001423", 1) in lines


def test_a_refused_token_is_one_message_not_a_traceback(http_url):
    run = demo(http_url, "not-a-token", "")
    assert run.returncode == 1 and "refused the token (HTTP 401)" in run.stderr and "Traceback" not in run.stderr


def test_an_expired_round_is_explained_instead_of_a_traceback():
    spec = importlib.util.spec_from_file_location("elicitation_demo", DEMO)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    expired = MCPError(INVALID_PARAMS, "Invalid or expired requestState")
    message = module.explain(ExceptionGroup("task group", [ExceptionGroup("inner", [expired])]), "http://x/mcp")
    assert "round expired" in message and "created nothing" in message and "AFTERSALES_STATE_TTL" in message

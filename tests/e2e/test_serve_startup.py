"""`aftersales serve` as a person starts it: settings checked and the port bound before the database is touched."""

import os
import re
import socket
import subprocess
from pathlib import Path

import httpx
import pytest

from aftersales.domain.callers import READ
from aftersales.storage.models import ToolCall
from tests.support.clients import bearer_token, connect_http
from tests.support.database import count_rows, engine_at
from tests.support.serve import SERVE, new_key

pytestmark = pytest.mark.http


def serve(tmp_path: Path, *flags: str, **settings: str) -> subprocess.Popen[str]:
    """Start `aftersales serve` on a fresh SQLite file in `tmp_path`, reading its stderr as text."""
    env = {
        **os.environ,
        "AFTERSALES_DATABASE_URL": f"sqlite:///{tmp_path / 'fresh.db'}",
        "AFTERSALES_LOG_LEVEL": "WARNING",
        **settings,
    }
    return subprocess.Popen([*SERVE, *flags], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def failure(tmp_path: Path, *flags: str, **settings: str) -> str:
    """Run a start that must fail; return its stderr after checking it changed nothing."""
    process = serve(tmp_path, *flags, **settings)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2, err
    assert "serving MCP" not in err and "token" not in err.lower() and "Traceback" not in err
    assert not (tmp_path / "fresh.db").exists()  # stopped before migrating
    return err.strip().splitlines()[-1]


def test_a_busy_port_fails_in_one_line_before_the_banner_and_before_migrating(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = failure(tmp_path, "--port", str(port))
    assert f"port {port} on 127.0.0.1 is already in use" in line and "AFTERSALES_PORT" in line


def test_a_busy_port_with_two_workers_fails_in_one_line_before_any_worker_starts(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = failure(tmp_path, "--port", str(port), "--workers", "2")
    assert f"port {port} on 127.0.0.1 is already in use" in line


def test_stdio_with_two_workers_is_refused_in_one_line(tmp_path):
    line = failure(tmp_path, "--stdio", AFTERSALES_WORKERS="2")
    assert "--workers 2 cannot serve --stdio" in line and "AFTERSALES_WORKERS=1" in line


def test_a_host_that_is_not_this_machine_fails_in_one_line_before_migrating(tmp_path):
    # 192.0.2.1 is reserved for documentation: never an address of this machine.
    line = failure(tmp_path, AFTERSALES_HOST="192.0.2.1", AFTERSALES_ALLOWED_HOSTS="shop.example")
    assert "192.0.2.1" in line and "AFTERSALES_HOST" in line


def test_binding_every_interface_without_allowed_hosts_fails_before_migrating(tmp_path):
    line = failure(tmp_path, "--port", "0", AFTERSALES_HOST="0.0.0.0", AFTERSALES_ALLOWED_HOSTS="")
    assert "AFTERSALES_ALLOWED_HOSTS" in line


def until_banner(process: subprocess.Popen[str]) -> tuple[str, str]:
    """Read stderr until the banner; return the base URL it names and everything printed so far."""
    assert process.stderr is not None
    lines: list[str] = []
    while not any("serving MCP at" in line for line in lines):
        line = process.stderr.readline()
        assert line, "".join(lines)
        lines.append(line)
    printed = "".join(lines)
    return re.search(r"serving MCP at (http://\S+)/mcp", printed).group(1), printed


def test_the_banner_appears_once_the_url_it_names_answers(tmp_path):
    process = serve(tmp_path, "--port", "0")
    try:
        url, printed = until_banner(process)
        assert httpx.get(f"{url}/readyz", timeout=5).status_code == 200  # at once, no retry
        data_dir = os.environ["AFTERSALES_DATA_DIR"]
        assert f"data dir {data_dir}, database sqlite:///{tmp_path / 'fresh.db'}" in printed
        assert printed.index("database ready") < printed.index("serving MCP at")
    finally:
        process.terminate()
        process.communicate(timeout=30)


@pytest.mark.anyio
async def test_a_server_stopped_with_sigterm_writes_the_audit_of_its_last_calls(tmp_path):
    secret = new_key()
    process = serve(tmp_path, "--port", "0", AFTERSALES_SECRET_KEYS=secret)
    try:
        url, _ = until_banner(process)
        token = bearer_token([secret], "support-bot", [READ])
        async with connect_http(url, token) as client:
            for _ in range(5):
                await client.call_tool("after_sales_query_ticket", {"ticket_id": "T-2026-0357"})
    finally:
        process.terminate()
        process.communicate(timeout=30)
    assert process.returncode == 0
    with engine_at(f"sqlite:///{tmp_path / 'fresh.db'}") as engine:
        assert count_rows(engine, ToolCall) == 5

"""End-to-end fixtures: the real MCP client, in memory and over HTTP against uvicorn."""

import socket
import threading
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
import uvicorn

from aftersales.app import App
from aftersales.clock import now
from aftersales.domain.callers import ALL_SCOPES
from aftersales.mcp.server import build_server
from aftersales.security import tokens
from aftersales.web.app import create_web_app

MODES = ["auto", "legacy"]  # 2026-07-28 (stateless) and 2025-11-25 (initialize handshake)


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    """Each end-to-end test runs on both protocol revisions."""
    return request.param


@pytest.fixture
def server(app: App):
    """The MCPServer over the test's database."""
    return build_server(app)


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def http_url(app: App) -> Iterator[str]:
    """Serve the web app with uvicorn on a free loopback port; yield the base URL."""
    port = free_port()
    config = uvicorn.Config(create_web_app(app), host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    runner = uvicorn.Server(config)
    thread = threading.Thread(target=runner.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not runner.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    runner.should_exit = True
    thread.join(10)


@pytest.fixture
def issue_token(app: App):
    """Issue a caller token signed with the app's keys."""

    def issue(caller: str = "support-bot", scopes: tuple[str, ...] = ALL_SCOPES, ttl: timedelta = timedelta(days=1)):
        return tokens.issue(app.caller_keys, caller, list(scopes), ttl, now())

    return issue


@pytest.fixture
def token(issue_token) -> str:
    """A token for support-bot with every scope."""
    return issue_token()

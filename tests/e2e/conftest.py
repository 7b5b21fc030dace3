"""End-to-end fixtures: the real MCP client, in memory and over HTTP against uvicorn."""

from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy.engine import make_url

from aftersales.app import App
from aftersales.domain.callers import ALL_SCOPES
from aftersales.mcp.server import build_server
from aftersales.web.app import create_web_app
from tests.support.balancer import BALANCER_SETTINGS, BalancedFleet, balanced_fleet
from tests.support.clients import bearer_token
from tests.support.episodes import Served, serving_worlds
from tests.support.oauth_server import AuthorizationServer
from tests.support.postgres import scratch_database
from tests.support.web import serving

MODES = ["auto", "legacy"]  # 2026-07-28 (stateless) and 2025-11-25 (initialize handshake)


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    """Each end-to-end test runs on both protocol revisions."""
    return request.param


@pytest.fixture
def server(app: App):
    """The MCPServer over the test's database."""
    return build_server(app)


@pytest.fixture
def http_url(app: App) -> Iterator[str]:
    """Serve the web app with uvicorn on a free loopback port; yield the base URL."""
    with serving(create_web_app(app)) as url:
        yield url


@pytest.fixture
def issue_token(app: App):
    """Issue a caller token signed with the app's keys."""

    def issue(caller: str = "support-bot", scopes: tuple[str, ...] = ALL_SCOPES, ttl: timedelta = timedelta(days=1)):
        return bearer_token(app.caller_keys, caller, scopes, ttl)

    return issue


@pytest.fixture
def token(issue_token) -> str:
    """A token for support-bot with every scope."""
    return issue_token()


@pytest.fixture
def served_worlds(backend, database_url, request, tmp_path) -> Iterator[Served]:
    """The web app serving worlds (on this test's database as control) over HTTP, and an admin client for it."""
    home = request.getfixturevalue("postgres_worlds_home" if backend == "postgresql" else "worlds_home")
    marker = request.node.get_closest_marker("settings")
    with serving_worlds(home, database_url, tmp_path, **(marker.kwargs if marker else {})) as served:
        yield served


@pytest.fixture(scope="session")
def authorization_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuthorizationServer]:
    """A real authorization server (oidc-provider), started the first time a test asks for it on this worker."""
    server = AuthorizationServer(tmp_path_factory.mktemp("authorization-server"))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def balanced(
    postgres_template: str, postgres_admin_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BalancedFleet]:
    """Three `aftersales serve` replicas on one PostgreSQL database behind HAProxy with the shipped configuration,
    started the first time a test asks for them on this worker."""
    with (
        scratch_database(postgres_admin_url, make_url(postgres_template).database) as url,
        balanced_fleet(url, tmp_path_factory.mktemp("balanced"), **BALANCER_SETTINGS) as fleet,
    ):
        yield fleet

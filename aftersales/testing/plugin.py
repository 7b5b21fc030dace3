"""The pytest plugin `aftersales` (registered by the package): worlds and agent trials for a team's tests.

Fixtures: `aftersales_server` (a server on a loopback port serving test worlds, started once per session on first
use), `world` (a fresh world per test: .url, .token, .diff(), .expect(...), .advance(...), .trace()) and
`aftersales` (`.run(task, agent, trials=k)`: pass^k of a shipped or custom task, in the terminal summary).
Nothing starts, and nothing heavier than pytest is imported, unless a test asks for one of them.
"""

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from aftersales.testing.fixtures import AgentTrials, TaskRun, TestWorld
    from aftersales.testing.host import Host

RUNS = pytest.StashKey[list["TaskRun"]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """--aftersales-database-url: where the test worlds live."""
    parser.getgroup("aftersales").addoption(
        "--aftersales-database-url",
        default=None,
        help="Control database of the test worlds (a PostgreSQL URL puts them on that server; "
        "default: a private SQLite folder). Also AFTERSALES_TEST_DATABASE_URL.",
    )


def pytest_configure(config: pytest.Config) -> None:
    """The aftersales_world marker, and room for the runs' results."""
    config.addinivalue_line(
        "markers", "aftersales_world(**start): how the `world` fixture's world starts (clock, settings, rows, events)"
    )
    config.stash[RUNS] = []


@pytest.fixture(scope="session")
def aftersales_server(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Iterator["Host"]:
    """The server and its worlds, in this process, on a free loopback port."""
    from aftersales.testing.host import Host, harness_settings

    url = pytestconfig.getoption("aftersales_database_url") or os.environ.get("AFTERSALES_TEST_DATABASE_URL")
    with Host(harness_settings(url, tmp_path_factory.mktemp("aftersales"))) as host:
        yield host


@pytest.fixture
def world(aftersales_server: "Host", request: pytest.FixtureRequest) -> Iterator["TestWorld"]:
    """A fresh world for this test (the baseline, frozen at the tasks' instant unless the marker says otherwise)."""
    from aftersales.testing.fixtures import TestWorld
    from aftersales.testing.tasks import WorldStart

    marker = request.node.get_closest_marker("aftersales_world")
    start = WorldStart.model_validate(dict(marker.kwargs) if marker else {})
    opened = aftersales_server.open(start, label=request.node.name)
    try:
        yield TestWorld(aftersales_server, opened)
    finally:
        aftersales_server.close_trial(opened)


@pytest.fixture
def aftersales(aftersales_server: "Host", pytestconfig: pytest.Config) -> "AgentTrials":
    """Run tasks against your agent: `aftersales.run("refund-tshirts-store-credit", my_agent, trials=4)`."""
    from aftersales.testing.fixtures import AgentTrials

    return AgentTrials(aftersales_server, pytestconfig.stash[RUNS].append)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """pass^k of every task run, when any was."""
    runs = config.stash.get(RUNS, [])
    if not runs:
        return
    most = max(run.trials for run in runs)
    terminalreporter.section("aftersales pass^k")
    terminalreporter.write_line(f"{'task':44} {'passed':>7}  " + "  ".join(f"pass^{k:<3}" for k in range(1, most + 1)))
    for run in runs:
        figures = "  ".join(f"{run.pass_hat_k.get(k, 0.0):<7.3f}" for k in range(1, run.trials + 1))
        terminalreporter.write_line(f"{run.task.id:44} {run.passed:>3}/{run.trials:<3}  {figures}")

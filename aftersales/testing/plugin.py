"""The pytest plugin `aftersales` (registered by the package): worlds and agent trials for a team's tests.

Fixtures: `aftersales_server` (the server of the test worlds, chosen once per session on first use: in this process
on a loopback port, `aftersales serve` in a subprocess, or an existing server's URL), `world` (a fresh world per
test: .url, .token, .diff(), .expect(...), .advance(...), .trace()) and `aftersales` (`.run(task, agent, trials=k)`:
pass^k of a shipped or custom task, in the terminal summary).
Nothing starts, and nothing heavier than pytest is imported, unless a test asks for one of them.
"""

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from aftersales.testing.fixtures import AgentTrials, TaskRun, TestWorld
    from aftersales.testing.hosts.interface import TrialHost

RUNS = pytest.StashKey[list["TaskRun"]]()
OPTIONS = {  # option: (environment variable, help)
    "database_url": (
        "AFTERSALES_TEST_DATABASE_URL",
        "Control database of the test worlds (a PostgreSQL URL puts them on that server; default: a private SQLite "
        "folder).",
    ),
    "server": (
        "AFTERSALES_TEST_SERVER",
        "in-process (default) or subprocess: `aftersales serve` on a free port with a private data dir, driven "
        "through its worlds admin API and stopped at the end of the session.",
    ),
    "url": (
        "AFTERSALES_TEST_URL",
        "An already running aftersales server serving the worlds admin API (AFTERSALES_WORLDS_ADMIN=true): the test "
        "worlds are made there.",
    ),
    "admin_token": ("AFTERSALES_TEST_ADMIN_TOKEN", "A token with the worlds:admin scope for --aftersales-url."),
}


def pytest_addoption(parser: pytest.Parser) -> None:
    """--aftersales-database-url, --aftersales-server, --aftersales-url, --aftersales-admin-token."""
    group = parser.getgroup("aftersales")
    for name, (variable, text) in OPTIONS.items():
        group.addoption(f"--aftersales-{name.replace('_', '-')}", default=None, help=f"{text} Also {variable}.")


def option(config: pytest.Config, name: str) -> str | None:
    """An option of the plugin: the command line's, else its environment variable."""
    given: str | None = config.getoption(f"aftersales_{name}")
    return given or os.environ.get(OPTIONS[name][0]) or None


def pytest_configure(config: pytest.Config) -> None:
    """The aftersales_world marker, and room for the runs' results."""
    config.addinivalue_line(
        "markers", "aftersales_world(**start): how the `world` fixture's world starts (clock, settings, rows, events)"
    )
    config.stash[RUNS] = []


@pytest.fixture(scope="session")
def aftersales_server(pytestconfig: pytest.Config) -> Iterator["TrialHost"]:
    """The server of the test worlds: in this process, a subprocess, or an existing URL (see the options).

    Its keys, control database and worlds live in a temporary folder removed when the session ends (pytest's own
    temporary folders are kept for a few sessions), also when it fails or is interrupted.
    """
    from aftersales.testing.hosts.remote import ServerUnavailable
    from aftersales.testing.servers import open_host

    chosen = {name: option(pytestconfig, name) for name in OPTIONS}
    mode = chosen.pop("server") or "in-process"
    try:
        with (
            tempfile.TemporaryDirectory(prefix="aftersales-pytest-", ignore_cleanup_errors=True) as folder,
            open_host(Path(folder), mode=mode, **chosen) as host,
        ):
            yield host
    except ServerUnavailable as problem:
        pytest.fail(str(problem), pytrace=False)


@pytest.fixture
def world(aftersales_server: "TrialHost", request: pytest.FixtureRequest) -> Iterator["TestWorld"]:
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
def aftersales(aftersales_server: "TrialHost", pytestconfig: pytest.Config) -> "AgentTrials":
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

"""Shared fixtures: every database-facing test runs on SQLite and on PostgreSQL, each from a seeded template."""

import os
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# asyncpg's compiled modules check the size of datetime.date when first imported: imported for the first time inside a
# test that freezegun has frozen, they meet its FakeDate and refuse to load. Importing it here, before any test runs,
# keeps that an import-order accident of the test process rather than a failure of the first frozen PostgreSQL call.
import asyncpg  # noqa: F401
import pytest
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from aftersales.app import App
from aftersales.bootstrap import baseline_path, prepare
from aftersales.seeding import dataset
from aftersales.seeding.generator import World
from aftersales.storage.database import make_engine
from aftersales.worlds.service import Worlds
from tests.support import leftovers, postgres
from tests.support.apps import SEED_DIR, app_without_database, settings_for
from tests.support.postgres import admin_engine, scratch_database
from tests.support.worlds import WorldsHome, drop_databases, home_for_run, open_worlds

BACKENDS = ["sqlite", "postgresql"]
pytest_plugins = ["pytester"]  # tests of the aftersales pytest plugin run pytest inside pytest
TEMPLATE = "aftersales_template"
SESSION_TMP = pytest.StashKey[tuple[Path, str]]()


def pytest_configure(config: pytest.Config) -> None:
    """Register the `settings` marker; the session's own temporary directory (made once, by the controller)."""
    config.addinivalue_line("markers", "settings(**changes): the test's app (and bare_app) run with these settings")
    if not hasattr(config, "workerinput"):  # an xdist worker inherits the controller's TMPDIR
        config.stash[SESSION_TMP] = leftovers.make_private()


# The longest files start first (longest processing time first), so that `--dist loadfile --no-loadscope-reorder`,
# which hands out files in collection order, ends on short files on every worker instead of one worker still inside a
# long one. Ranked by the seconds each file's tests took in a whole `make test` (per test from setup to teardown,
# summed per file); every file of 8 s or more is listed.
LONGEST_FIRST = (
    "e2e/test_demo_page.py",
    "e2e/test_world_scale.py",
    "e2e/test_llm_agent.py",
    "e2e/test_readme_walkthroughs.py",
    "integration/test_tasks_check_on_postgresql.py",
    "e2e/test_eval_conversation_mistakes.py",
    "e2e/test_pytest_plugin_remote.py",
    "integration/test_tasks_check.py",
    "e2e/test_eval_conversation.py",
    "integration/test_bulk_generation.py",
    "e2e/test_serve_startup.py",
    "e2e/test_pinning.py",
    "e2e/test_installed_wheel.py",
    "e2e/test_shutdown.py",
    "e2e/test_fuzzed_calls.py",
    "e2e/test_workers.py",
    "e2e/test_create_ticket.py",
    "e2e/test_eval_descriptions.py",
    "e2e/test_pytest_plugin.py",
    "e2e/test_eval_without_forms.py",
    "integration/test_worlds.py",
    "e2e/test_stdio.py",
    "e2e/test_eval.py",
    "integration/test_order_agreement.py",
    "e2e/test_demo_command.py",
    "e2e/test_cancel_ticket.py",
    "e2e/test_eval_housekeeping.py",
    "integration/test_world_snapshots.py",
    "e2e/test_conformance.py",
    "e2e/test_resumption.py",
    "e2e/test_eval_replay.py",
    "e2e/test_balancer.py",
    "e2e/test_find_orders.py",
    "e2e/test_ts_client.py",
    "e2e/test_replicas.py",
    "e2e/test_payout_worlds.py",
    "e2e/test_world_routing.py",
    "e2e/test_oauth.py",
    "e2e/test_world_time.py",
    "e2e/test_bank_transfer.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the longest files first; the sort is stable, so every other order stays as collected."""
    rank = {name: place for place, name in enumerate(LONGEST_FIRST)}
    here = Path(__file__).parent

    def place(item: pytest.Item) -> int:
        try:
            return rank.get(item.path.relative_to(here).as_posix(), len(rank))
        except ValueError:  # an item from outside tests/ (a pytester run's own files)
            return len(rank)

    items.sort(key=place)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Fail the session when it left a temporary folder or file of the project behind; then remove its directory.

    Last of the hooks: the workers have ended, and the session's fixtures are torn down.
    """
    folder, shared = session.config.stash.get(SESSION_TMP, (None, ""))
    if folder is None:
        return
    left = leftovers.left_behind(folder)
    leftovers.remove(folder, shared)
    if left:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = f"the test session left temporary folders or files of the project behind: {', '.join(left)}"
        if reporter is not None:
            reporter.ensure_newline()
            reporter.write_line(f"aftersales: {message}", red=True, bold=True)
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def changed_settings(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The settings a test's `settings` marker changes (none without one)."""
    marker = request.node.get_closest_marker("settings")
    return dict(marker.kwargs) if marker else {}


@pytest.fixture
def anyio_backend() -> str:
    """Async tests and fixtures run on asyncio, the event loop the server runs on."""
    return "asyncio"


@pytest.fixture(scope="session", autouse=True)
def private_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Commands and servers started by tests keep keys and databases in a folder of this run, not the user's."""
    folder = tmp_path_factory.mktemp("data")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AFTERSALES_DATA_DIR", str(folder))
        yield folder


@pytest.fixture(scope="session")
def baseline() -> World:
    """The committed baseline dataset."""
    return dataset.read(baseline_path(SEED_DIR))


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to head and loaded with the baseline, built once per run."""
    path = tmp_path_factory.mktemp("template") / "aftersales.db"
    engine = make_engine(f"sqlite:///{path}")
    prepare(engine, SEED_DIR)
    engine.dispose()
    return path


@pytest.fixture(scope="session")
def postgres_admin_url() -> Iterator[str]:
    """A PostgreSQL server URL: AFTERSALES_TEST_POSTGRES_URL, or a throwaway server started for this run."""
    configured = os.environ.get("AFTERSALES_TEST_POSTGRES_URL")
    if configured:
        yield configured
        return
    server = postgres.start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def postgres_template(postgres_admin_url: str) -> str:
    """A database migrated and seeded once; each test gets a copy made with CREATE DATABASE ... TEMPLATE."""
    admin = admin_engine(postgres_admin_url)
    with admin.connect() as connection:
        connection.execute(text(f"DROP DATABASE IF EXISTS {TEMPLATE} WITH (FORCE)"))
        connection.execute(text(f"CREATE DATABASE {TEMPLATE}"))
    admin.dispose()
    url = make_url(postgres_admin_url).set(database=TEMPLATE).render_as_string(hide_password=False)
    engine = make_engine(url)
    prepare(engine, SEED_DIR)
    engine.dispose()
    return url


@pytest.fixture(scope="session")
def postgres_copies(postgres_admin_url: str, postgres_template: str) -> Iterator[postgres.Copies]:
    """Copies of the seeded template (postgres_template builds it) for one test each, made ahead of the test."""
    copies = postgres.Copies(postgres_admin_url, TEMPLATE)
    yield copies
    copies.close()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """Which database this test runs on."""
    return request.param


@pytest.fixture
def database_url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A private, seeded database for one test on the chosen backend."""
    if backend == "sqlite":
        copy = tmp_path / "aftersales.db"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), copy)
        yield f"sqlite:///{copy}"
        return
    with request.getfixturevalue("postgres_copies").one() as url:
        yield url


@pytest.fixture
def app(database_url: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[App]:
    """An App on a private copy of the seeded database, with the settings a `settings` marker changes."""
    application = App(settings_for(database_url, tmp_path, **changed_settings(request)))
    yield application
    application.close()


@pytest.fixture
def bare_app(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[App]:
    """An App whose database is never touched, with the settings a `settings` marker changes."""
    application = app_without_database(tmp_path, **changed_settings(request))
    yield application
    application.close()


@pytest.fixture
def engine(app: App) -> Engine:
    """The seeded database's engine."""
    return app.engine


@pytest.fixture
def empty_url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL to a fresh, empty database on the chosen backend."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    with scratch_database(request.getfixturevalue("postgres_admin_url")) as url:
        yield url


@pytest.fixture
def empty_engine(empty_url: str) -> Iterator[Engine]:
    """An engine on a fresh, empty database."""
    engine = make_engine(empty_url)
    yield engine
    engine.dispose()


@pytest.fixture
def stories(baseline: World) -> dict[str, dict[str, str]]:
    """Story records by key (see seed/README.md)."""
    return baseline.stories


_outcomes: Counter[tuple[str, str]] = Counter()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    """Label each report with the test's backend; the label travels with the report from a parallel worker."""
    report = yield
    callspec = getattr(item, "callspec", None)
    chosen = callspec.params.get("backend") if callspec else None
    if chosen is None:
        chosen = "postgresql" if "postgres_template" in getattr(item, "fixturenames", ()) else "no database"
    report.user_properties.append(("backend", chosen))
    return report


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Count each test's outcome under its backend (in the process that prints the summary)."""
    chosen = dict(report.user_properties).get("backend")
    if chosen is not None and (report.when == "call" or (report.when == "setup" and report.outcome != "passed")):
        _outcomes[(str(chosen), report.outcome)] += 1


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print how many tests ran on each backend."""
    if hasattr(terminalreporter.config, "workerinput"):
        return  # a parallel worker: the controller prints the run's summary
    backends = sorted({name for name, _ in _outcomes})
    terminalreporter.section("tests per backend")
    for name in backends:
        counts = ", ".join(f"{_outcomes[(name, outcome)]} {outcome}" for outcome in ("passed", "failed", "skipped"))
        terminalreporter.write_line(f"backend {name} ran these tests: {counts}")


@pytest.fixture(scope="session")
def worlds_home(tmp_path_factory: pytest.TempPathFactory) -> WorldsHome:
    """Where this run's worlds and templates live: one folder, one PostgreSQL name prefix (templates built once)."""
    return home_for_run(tmp_path_factory.mktemp("worlds"))


@pytest.fixture(scope="session")
def postgres_worlds_home(worlds_home: WorldsHome, postgres_admin_url: str) -> Iterator[WorldsHome]:
    """The same home on PostgreSQL; the databases its worlds and templates leave are dropped at the end."""
    yield worlds_home
    drop_databases(postgres_admin_url, worlds_home.prefix)


@pytest.fixture
def worlds(backend: str, database_url: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Worlds]:
    """A worlds service whose control database is a private seeded copy on the chosen backend."""
    home = request.getfixturevalue("postgres_worlds_home" if backend == "postgresql" else "worlds_home")
    with open_worlds(home, database_url, tmp_path / "var") as service:
        yield service

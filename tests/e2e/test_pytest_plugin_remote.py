"""The pytest plugin on a running server (pytester): `aftersales serve` as a subprocess, an existing URL, and the
failures a team sees when the URL does not answer or the token cannot administer worlds."""

import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from aftersales.app import App
from aftersales.bootstrap import prepare
from aftersales.domain.callers import ALL_SCOPES
from aftersales.testing.hosts.in_process import harness_settings
from aftersales.testing.hosts.remote import LEASE, RemoteHost, ServerUnavailable
from aftersales.testing.tasks import WorldStart
from aftersales.web.app import create_web_app
from aftersales.worlds.model import ADMIN_SCOPE
from tests.support.apps import app_without_database
from tests.support.clients import bearer_token
from tests.support.plugin_tests import PRELUDE
from tests.support.web import serving

REMOTE_TESTS = (
    PRELUDE
    + """
from pathlib import Path

from aftersales.testing.hosts.remote import NeedsInProcessServer



@pytest.mark.anyio
async def test_a_ticket_made_in_the_world_is_in_its_diff_and_trace(world):
    assert world.url.startswith(SERVED) and "/worlds/" not in world.url  # the running server's own endpoint
    Path("served.txt").write_text(world.url)
    (quote,) = await call(world, ("after_sales_estimate_refund", TSHIRTS))
    arguments = {**TSHIRTS, "kind": "return_and_refund", "description": "Not my style at all.",
                 "quote_id": quote.structured_content["quote_id"], "idempotency_key": "remote-test-01"}
    await call(world, ("after_sales_create_ticket", arguments), callback=world.elicitation_callback(CUSTOMER))
    world.expect(CREATED, calls={"must_call": ["after_sales_create_ticket"], "max_calls": 2})
    trace = world.trace()
    # No script on a running server: the create asks, and the client's retry answers (2026-07-28).
    assert [entry["tool"] for entry in trace] == ["after_sales_estimate_refund", *["after_sales_create_ticket"] * 2]
    assert trace[2]["resumes"] == trace[1]["seq"] and trace[2]["rounds"][0]["answered_by"] == "client"


async def my_agent(world, brief):
    (quote,) = await call(world, ("after_sales_estimate_refund", TSHIRTS))
    arguments = {**TSHIRTS, "kind": "return_and_refund", "description": brief.customer.wants.description,
                 "quote_id": quote.structured_content["quote_id"], "idempotency_key": f"mine-{brief.trial:02d}-ab"}
    (created,) = await call(world, ("after_sales_create_ticket", arguments), callback=world.elicitation_callback())
    return created.structured_content["next_step"]


def test_my_agent_refunds_tshirts_every_time(aftersales):
    run = aftersales.run("refund-tshirts-store-credit", my_agent, trials=2, forms="client")
    assert run.pass_hat_k == {1: 1.0, 2: 1.0}, run.failures()


def test_what_only_the_in_process_server_does_is_refused_by_name(aftersales, world):
    with pytest.raises(NeedsInProcessServer, match='forms answered by the world .forms="world"'):
        aftersales.run("refund-tshirts-store-credit", my_agent)
    with pytest.raises(NeedsInProcessServer, match="retry-after-timeout-same-key needs the in-process server for "
                       "world.events"):
        aftersales.run("retry-after-timeout-same-key", my_agent, forms="client")
    with pytest.raises(NeedsInProcessServer, match="world.answer_forms_as"):
        world.answer_forms_as(CUSTOMER)


@pytest.mark.aftersales_world(settings={"review_recent_tickets": 1})
def test_a_world_with_setting_overrides(world):
    pass
"""
)


def run_remote_tests(pytester: pytest.Pytester, served: str, *options: str) -> pytest.RunResult:
    """The team's tests above, run by pytest with the plugin's `options`; `served` is where worlds should live."""
    pytester.makepyfile(test_agent=REMOTE_TESTS.replace("SERVED", repr(served)))
    pytester.makeini("[pytest]\nanyio_mode = strict\n")
    return pytester.runpytest_subprocess(
        "-p", "anyio", "-q", "-W", "error::pytest.PytestUnraisableExceptionWarning", *options
    )


def assert_ran_on_the_server(result: pytest.RunResult) -> None:
    """Everything passed but the test whose world start the server cannot make, which says why."""
    result.assert_outcomes(passed=4, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*test_a_world_with_setting_overrides needs the in-process server for world.settings (a running server "
            "has one set of settings for every world)*",
            "*refund-tshirts-store-credit *2/2 *1.000 *1.000*",
        ]
    )


def run_unusable(pytester: pytest.Pytester, *options: str) -> pytest.RunResult:
    """Two tests needing the server, run with `options` that name one the plugin cannot use: both error."""
    pytester.makepyfile(test_unusable="def test_one(world):\n    pass\n\n\ndef test_two(aftersales):\n    pass\n")
    result = pytester.runpytest_subprocess("-q", *options)
    result.assert_outcomes(errors=2)
    return result


@pytest.fixture(scope="module")
def running_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, App]]:
    """An aftersales server with the worlds admin API, running before the team's tests start (here, in this process)."""
    app = App(harness_settings(None, tmp_path_factory.mktemp("running"), worlds_admin=True))
    prepare(app.engine, app.settings.seed_dir, seed_when_empty=False)
    try:
        with serving(create_web_app(app)) as url:
            yield url, app
    finally:
        app.close()


def test_the_plugin_starts_aftersales_serve_in_a_subprocess_and_stops_it(pytester: pytest.Pytester) -> None:
    result = run_remote_tests(pytester, "http://127.0.0.1:", "--aftersales-server", "subprocess")
    assert_ran_on_the_server(result)
    served = urlsplit((pytester.path / "served.txt").read_text())
    with pytest.raises(ConnectionRefusedError):  # stopped when the session ended
        socket.create_connection((served.hostname, served.port), timeout=5).close()


def test_the_plugin_makes_its_worlds_on_an_already_running_server(
    pytester: pytest.Pytester, running_server: tuple[str, App], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, app = running_server
    monkeypatch.setenv("AFTERSALES_TEST_ADMIN_TOKEN", bearer_token(app.caller_keys, "harness", [ADMIN_SCOPE]))
    result = run_remote_tests(pytester, url, "--aftersales-url", url + "/mcp")  # as `serve` prints it
    assert_ran_on_the_server(result)
    assert app.worlds.registry.all() == []  # every world the tests made was dropped


def test_a_token_without_worlds_admin_fails_every_test_saying_which_scope_it_lacks(
    pytester: pytest.Pytester, running_server: tuple[str, App]
) -> None:
    url, app = running_server
    tool_token = bearer_token(app.caller_keys, "support-bot", ALL_SCOPES)
    result = run_unusable(pytester, "--aftersales-url", url, "--aftersales-admin-token", tool_token)
    result.stdout.fnmatch_lines(
        [
            f"*The server at {url} refused the admin token of --aftersales-admin-token (AFTERSALES_TEST_ADMIN_TOKEN): "
            '403 insufficient_scope. Caller "support-bot" may not administer worlds*needs the worlds:admin scope*'
        ]
    )


def test_an_unreachable_url_fails_every_test_saying_no_server_answers_there(pytester: pytest.Pytester) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}"
    result = run_unusable(pytester, "--aftersales-url", url, "--aftersales-admin-token", "any")
    result.stdout.fnmatch_lines([f"*No aftersales server answers at {url} (*). The plugin's remote mode drives*"])


def test_a_server_without_the_worlds_admin_api_is_named_as_such(tmp_path: Path) -> None:
    app = app_without_database(tmp_path, worlds_admin=False)
    try:
        with serving(create_web_app(app)) as url, pytest.raises(ServerUnavailable) as refused, RemoteHost(url, "t"):
            pass
    finally:
        app.close()
    assert str(refused.value).startswith(f"The server at {url} serves no worlds admin API (404 at /admin/worlds).")
    assert "AFTERSALES_WORLDS_ADMIN=true" in str(refused.value)


def test_a_trial_world_on_a_running_server_has_a_lease_so_a_crashed_harness_does_not_hold_it_for_a_day(
    running_server: tuple[str, App],
) -> None:
    url, app = running_server
    with RemoteHost(url, bearer_token(app.caller_keys, "harness", [ADMIN_SCOPE])) as host:
        opened = host.open(WorldStart())
        made = app.worlds.get(opened.id)
        host.close_trial(opened)
    assert made.expires_at is not None and made.expires_at - made.created_at == LEASE < app.settings.worlds_idle_ttl

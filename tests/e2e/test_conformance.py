"""The official MCP conformance suite's server scenarios, on both revisions, against uvicorn over HTTP.

The suite cannot send a bearer token, so it talks to a proxy that adds one (tests/support/header_proxy.py); the
server keeps requiring it. Checks that need the suite's own fixture tools, prompts or resources are listed with
their reasons in conformance-expected-failures.yml; everything else must pass. The proxy also keeps every JSON-RPC
error the server answered, so a server fault fails the test even inside a check that does not apply.
The suite's server leg has no authorization scenarios (see the baseline's header); its authorization-server
scenarios run in tests/e2e/test_oauth.py, against the authorization server the OAuth tests use.
"""

from pathlib import Path

import httpx
import pytest

from tests.support import conformance, header_proxy
from tests.support.sessions import ACCEPT, INITIALIZE
from tests.support.wire import ErrorLog

pytestmark = pytest.mark.http
BASELINE = Path(__file__).with_name("conformance-expected-failures.yml")


@pytest.mark.parametrize("revision", ["2026-07-28", "2025-11-25"])
def test_every_conformance_check_that_applies_passes_and_the_server_never_faults(
    revision, http_url, issue_token, tmp_path
):
    errors = ErrorLog()
    headers = {"Authorization": f"Bearer {issue_token('conformance-suite')}"}
    with header_proxy.running(http_url, headers, observe=errors) as proxy:
        results = conformance.run_suite(f"{proxy}/mcp", revision, tmp_path / "results")

    expected = conformance.expected_failures(BASELINE, revision)
    verdict = conformance.judge(results, conformance.judged_scenarios(revision), expected)
    assert verdict.unexpected == [], "checks that fail but are not in the baseline"
    assert verdict.stale == [], "baseline entries that pass now: remove them from conformance-expected-failures.yml"
    assert errors.faults == [], "the server answered with a fault"


def test_the_proxy_adds_the_token_and_the_server_still_refuses_a_request_without_one(http_url, issue_token):
    headers = {"Authorization": f"Bearer {issue_token('conformance-suite')}"}
    with header_proxy.running(http_url, headers) as proxy, httpx.Client(timeout=10) as http:
        direct = http.post(f"{http_url}/mcp", json=INITIALIZE, headers=ACCEPT)
        proxied = http.post(f"{proxy}/mcp", json=INITIALIZE, headers=ACCEPT)
    assert direct.status_code == 401
    assert proxied.status_code == 200 and proxied.headers["mcp-session-id"]
    assert '"protocolVersion":"2025-11-25"' in proxied.text

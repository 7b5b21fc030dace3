"""OAuth mode end to end, against a real authorization server (oidc-provider, tests/support/oauth_server.py).

Hosts connect from nothing with the SDK's own OAuth providers, as the MCP authorization specification has them
do; the refusals here are those that need the real issuer (its tokens for another resource or without a scope,
its key rotations, the issuer going down), and its real tokens expired or changed as an attacker would (forged,
alg none, HS256 with its public key, malformed). A token of another issuer, and every refusal again in detail,
are tests of the resource server against an issuer in memory (tests/unit/security/test_access_tokens.py,
test_issuer_keys.py, tests/e2e/test_oauth_resource.py), and so are the admin API's worlds:admin and `serve`
stopping in one line when the issuer cannot be reached (tests/integration/test_cli.py).
"""

import base64
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from freezegun import freeze_time
from jwt.algorithms import RSAAlgorithm
from sqlalchemy import select

from aftersales.app import App
from aftersales.domain.calls import TOOL_NAMES
from aftersales.storage.models import ToolCall
from aftersales.web.app import create_web_app
from tests.support import conformance
from tests.support.apps import settings_for
from tests.support.creation import create_arguments
from tests.support.elicitation import Person
from tests.support.free_ports import free_port
from tests.support.issuer import hmac_signed, pem_of, segment, unsigned_token
from tests.support.oauth_hosts import connect_oauth, machine_host, person_host
from tests.support.oauth_server import AuthorizationServer
from tests.support.sessions import ACCEPT
from tests.support.web import serving

pytestmark = [pytest.mark.anyio, pytest.mark.http]
SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # the HTTP layer's rules, not storage's
QUERY = "after_sales_query_ticket"
CREATE = "after_sales_create_ticket"
MODERN = {**ACCEPT, "MCP-Protocol-Version": "2026-07-28"}
# The envelope every stateless (2026-07-28) request carries in params._meta.
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


class Served:
    """aftersales in OAuth mode over HTTP: its app, base URL and canonical /mcp URL (the resource)."""

    def __init__(self, app: App, url: str) -> None:
        self.app, self.url, self.resource = app, url, f"{url}/mcp"

    def callers(self) -> list[str]:
        """The caller of each audited tool call, in order."""
        self.app.audit.flush()
        with self.app.uow() as uow:
            return list(uow.session.scalars(select(ToolCall.caller).order_by(ToolCall.id)))


@pytest.fixture
def served(authorization_server: AuthorizationServer, database_url: str, tmp_path: Path) -> Iterator[Served]:
    """The server in OAuth mode on a free port, trusting the test's issuer, with no pause between key refreshes
    (so a test sees a rotation at once; the bound on refreshes is a unit test's)."""
    port = free_port()
    settings = settings_for(
        database_url,
        tmp_path,
        auth="oauth",
        oauth_issuer=authorization_server.issuer,
        oauth_resource=f"http://127.0.0.1:{port}/mcp",
        oauth_keys_cooldown=timedelta(0),
    )
    app = App(settings)
    try:
        with serving(create_web_app(app), port) as url:
            yield Served(app, url)
    finally:
        app.close()


def claims(token: str, part: int = 1) -> dict[str, object]:
    """A JWT's payload (or with `part` 0 its header), unverified: what the issuer put in it."""
    encoded = token.split(".")[part]
    return dict(json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))))


def key_id(token: str) -> str:
    """The id of the key a JWT says it is signed with."""
    return str(claims(token, 0)["kid"])


def query(served: Served, token: str, ticket_id: str) -> httpx.Response:
    """One stateless (2026-07-28) tools/call of after_sales_query_ticket with `token`, as raw HTTP."""
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": QUERY, "arguments": {"ticket_id": ticket_id}, "_meta": ENVELOPE},
    }
    headers = {**MODERN, "Authorization": f"Bearer {token}", "Mcp-Method": "tools/call", "Mcp-Name": QUERY}
    return httpx.post(served.resource, json=call, headers=headers, timeout=10)


@SQLITE_ONLY
@pytest.mark.parametrize(
    "mode, preregistered", [("auto", False), ("legacy", True)], ids=["2026-07-28-registers", "2025-11-25-preregistered"]
)
async def test_a_host_connects_from_nothing_with_the_sdks_oauth_flow_and_calls_the_tools_as_the_person(
    served, authorization_server, stories, mode, preregistered
):
    host, sent = person_host(served.resource, authorization_server, preregistered), []
    async with connect_oauth(served.resource, host, sent, mode) as client:
        tools = await client.list_tools()
        result = await client.call_tool(QUERY, {"ticket_id": stories["ticket_awaiting_return"]["ticket_id"]})
    assert not result.is_error and tuple(tool.name for tool in tools.tools) == TOOL_NAMES
    issuer = authorization_server.issuer
    flow = [
        f"POST {served.resource} 401",
        f"GET {served.url}/.well-known/oauth-protected-resource/mcp 200",
        f"GET {issuer}/.well-known/oauth-authorization-server 200",
        *([] if preregistered else [f"POST {issuer}/reg 201"]),
        f"POST {issuer}/token 200",
        f"POST {served.resource} 200",
    ]
    assert sent[: len(flow)] == flow
    token = host.context.current_tokens
    assert token is not None
    granted = claims(token.access_token)
    assert granted["aud"] == served.resource and granted["sub"] == authorization_server.login
    assert set(str(granted["scope"]).split()) >= {"tickets:read", "tickets:write"}
    # A person's token: the caller that owns quotes and idempotency keys is the person (sub), not the host.
    assert served.callers() == [authorization_server.login]


@SQLITE_ONLY
async def test_a_host_the_person_allowed_only_to_read_steps_up_when_a_write_is_refused_with_insufficient_scope(
    served, authorization_server, stories
):
    host, sent = person_host(served.resource, authorization_server, allowing=[{"tickets:read"}]), []
    person = Person(method="original_payment")
    async with connect_oauth(served.resource, host, sent, elicitation_callback=person) as client:
        read = await client.call_tool(QUERY, {"ticket_id": stories["ticket_awaiting_return"]["ticket_id"]})
        created = await client.call_tool(CREATE, create_arguments(stories["vip_laptop_recent"]["order_id"]))
    assert not read.is_error and created.structured_content["outcome"] == "created", created.content
    # The write was refused with the scope it needs, and the host asked the person again, for read and write.
    assert f"POST {served.resource} 403" in sent
    assert sent.count(f"POST {authorization_server.issuer}/token 200") == 2
    token = host.context.current_tokens
    assert token is not None
    assert {"tickets:read", "tickets:write"} <= set(str(claims(token.access_token)["scope"]).split())


@SQLITE_ONLY
async def test_a_machine_client_gets_a_token_with_client_credentials_and_opens_a_ticket_answering_its_questions(
    served, authorization_server, stories, mode
):
    person, sent = Person(method="original_payment"), []
    host = machine_host(served.resource, authorization_server)
    arguments = create_arguments(stories["vip_laptop_recent"]["order_id"])
    async with connect_oauth(served.resource, host, sent, mode, elicitation_callback=person) as client:
        result = await client.call_tool(CREATE, arguments)
    assert result.structured_content["outcome"] == "created", result.content
    assert person.questions == ["refund_method", "confirm"]
    assert f"POST {authorization_server.issuer}/token 200" in sent
    assert set(served.callers()) == {authorization_server.machine.client_id}


@SQLITE_ONLY
async def test_a_new_signing_key_at_the_issuer_is_picked_up_without_a_restart(served, authorization_server, stories):
    ticket_id = stories["ticket_awaiting_return"]["ticket_id"]
    before = authorization_server.client_credentials_token(served.resource)
    assert query(served, before, ticket_id).status_code == 200
    kid = authorization_server.rotate_keys(keep_old=True)
    after = authorization_server.client_credentials_token(served.resource)
    assert key_id(after) == kid
    assert query(served, after, ticket_id).status_code == 200
    assert query(served, before, ticket_id).status_code == 200  # the old key is still published


@SQLITE_ONLY
async def test_a_token_signed_with_a_key_the_issuer_dropped_is_refused_once_the_keys_are_refreshed(
    served, authorization_server, stories
):
    ticket_id = stories["ticket_awaiting_return"]["ticket_id"]
    seen, unseen = (authorization_server.client_credentials_token(served.resource) for _ in range(2))
    assert query(served, seen, ticket_id).status_code == 200  # the server now holds the issuer's keys
    authorization_server.rotate_keys(keep_old=False)
    new = authorization_server.client_credentials_token(served.resource)
    assert query(served, new, ticket_id).status_code == 200  # an unknown key id: the keys are fetched again
    for dropped in (unseen, seen):  # one never shown, and one this server accepted before the rotation
        refused = query(served, dropped, ticket_id)
        assert refused.status_code == 401
        text = refused.json()["error_description"]
        assert f'signed with key "{key_id(dropped)}", which the issuer does not publish' in text
        assert 'error="invalid_token"' in refused.headers["www-authenticate"]


@SQLITE_ONLY
async def test_a_token_the_issuer_minted_for_another_resource_is_refused(served, authorization_server, stories):
    elsewhere = authorization_server.client_credentials_token(f"http://127.0.0.1:{free_port()}/mcp")
    refused = query(served, elsewhere, stories["ticket_awaiting_return"]["ticket_id"])
    assert refused.status_code == 401
    assert f"not issued for this resource ({served.resource})" in refused.json()["error_description"]
    challenge = refused.headers["www-authenticate"]
    assert f'resource_metadata="{served.url}/.well-known/oauth-protected-resource/mcp"' in challenge
    assert 'error="invalid_token"' in challenge


@SQLITE_ONLY
async def test_a_token_without_the_write_scope_may_read_but_a_write_is_refused_with_insufficient_scope(
    served, authorization_server, stories
):
    reader = authorization_server.client_credentials_token(served.resource, scope="tickets:read")
    assert query(served, reader, stories["ticket_awaiting_return"]["ticket_id"]).status_code == 200
    cancel_tool = "after_sales_cancel_ticket"
    cancel = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {
            "name": cancel_tool,
            "arguments": {"ticket_id": stories["ticket_awaiting_return"]["ticket_id"], "idempotency_key": "k-1"},
            "_meta": ENVELOPE,
        },
    }
    headers = {**MODERN, "Authorization": f"Bearer {reader}", "Mcp-Method": "tools/call", "Mcp-Name": cancel_tool}
    refused = httpx.post(served.resource, json=cancel, headers=headers, timeout=10)
    assert refused.status_code == 403
    challenge = refused.headers["www-authenticate"]
    assert 'error="insufficient_scope"' in challenge and "tickets:write" in challenge


@SQLITE_ONLY
async def test_while_the_issuer_is_down_the_cached_keys_keep_working_and_a_new_key_is_a_retryable_error(
    served, authorization_server, stories
):
    ticket_id = stories["ticket_awaiting_return"]["ticket_id"]
    known = authorization_server.client_credentials_token(served.resource)
    assert query(served, known, ticket_id).status_code == 200  # its key is now cached
    authorization_server.rotate_keys(keep_old=True)
    unseen = authorization_server.client_credentials_token(served.resource)
    with authorization_server.down():
        assert query(served, known, ticket_id).status_code == 200
        retry = query(served, unseen, ticket_id)
        assert retry.status_code == 503 and int(retry.headers["retry-after"]) > 0
        assert "Retry the same request" in retry.json()["what_to_do"]
    assert query(served, unseen, ticket_id).status_code == 200


def test_the_authorization_server_the_tests_use_passes_the_conformance_suites_authorization_server_scenarios(
    authorization_server, tmp_path
):
    def person(authorization_url: str) -> None:
        httpx.get(authorization_server.authorize(authorization_url), timeout=10).raise_for_status()

    resource = f"http://127.0.0.1:{free_port()}/mcp"
    results = conformance.run_authorization(
        authorization_server.issuer, authorization_server.public_client_id, resource, person, tmp_path / "results"
    )
    assert sorted(results) == ["authorization-code-grant", "authorization-server-metadata-endpoint"]
    failing = [
        f"{scenario}:{check['id']} {check['status']} {check.get('errorMessage', '')}"
        for scenario, checks in results.items()
        for check in checks
        if check["status"] != "SUCCESS"
    ]
    assert failing == []


def _public_key_pem(authorization_server: AuthorizationServer, kid: str) -> bytes:
    """The issuer's published public key, as the PEM an attacker would try as an HMAC secret."""
    jwks = httpx.get(f"{authorization_server.issuer}/jwks", timeout=10).raise_for_status().json()
    (jwk,) = [key for key in jwks["keys"] if key["kid"] == kid]
    return pem_of(RSAAlgorithm.from_jwk(json.dumps(jwk)))


def tampered(token: str, how: str, authorization_server: AuthorizationServer) -> str:
    """The issuer's real token, changed the way an attacker would change it."""
    header, payload, signature = token.split(".")
    if how == "forged":  # the scopes widened, the signature kept
        return f"{header}.{segment({**claims(token), 'scope': 'tickets:read tickets:write worlds:admin'})}.{signature}"
    if how == "alg-none":
        return unsigned_token(claims(token), key_id(token))
    if how == "hs256-with-public-key":
        return hmac_signed(claims(token), key_id(token), _public_key_pem(authorization_server, key_id(token)))
    assert how == "malformed"
    return f"{header}.{payload}"


@SQLITE_ONLY
@pytest.mark.parametrize(
    ("how", "reason"),
    [
        ("forged", "signature does not verify with the issuer's key"),
        ("alg-none", "signed with 'none', which is not accepted"),
        ("hs256-with-public-key", "signed with 'HS256', which is not accepted"),
        ("malformed", "not a JWT access token"),
    ],
)
async def test_the_issuers_real_token_changed_as_an_attacker_would_is_refused_with_401_saying_why(
    served, authorization_server, stories, how, reason
):
    real = authorization_server.client_credentials_token(served.resource, scope="tickets:read")
    refused = query(served, tampered(real, how, authorization_server), stories["ticket_awaiting_return"]["ticket_id"])
    assert refused.status_code == 401, refused.text
    assert reason in refused.json()["error_description"]
    assert 'error="invalid_token"' in refused.headers["www-authenticate"]


@SQLITE_ONLY
async def test_the_issuers_real_token_is_refused_once_it_has_expired_past_the_leeway(
    served, authorization_server, stories
):
    token = authorization_server.client_credentials_token(served.resource)
    expires = datetime.fromtimestamp(int(claims(token)["exp"]), UTC)
    later = expires + served.app.settings.oauth_leeway + timedelta(seconds=1)
    # The server's threads see the frozen wall clock; its event loop keeps real monotonic time (see test_world_time).
    with freeze_time(later, real_asyncio=True, ignore=["asyncio", "aftersales.storage.audit"]):
        refused = query(served, token, stories["ticket_awaiting_return"]["ticket_id"])
    assert refused.status_code == 401, refused.text
    assert "the bearer token expired at" in refused.json()["error_description"]

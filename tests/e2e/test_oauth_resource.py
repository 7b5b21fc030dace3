"""OAuth mode over real HTTP, against an issuer in memory: the protected resource metadata, the 401 and 403
challenges, tool calls with access tokens, worlds and the admin API, key rotation, and an issuer that goes away."""

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from aftersales.worlds.client import WorldsClient
from aftersales.worlds.model import ADMIN_SCOPE
from tests.support.clients import bearer_token, connect_http
from tests.support.episodes import Served, serving_worlds
from tests.support.free_ports import free_port
from tests.support.issuer import ISSUER, FakeIssuer, ec_key, hmac_with_public_key, unsigned_token

pytestmark = [pytest.mark.anyio, pytest.mark.http]
OPENING = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "oauth-test", "version": "1"}}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": OPENING}  # a request that stands alone
CREATE = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "after_sales_create_ticket"}}


@pytest.fixture
def backend() -> str:
    """One database is enough: what is checked here happens before any tool touches one."""
    return "sqlite"


@pytest.fixture
def oauth(worlds_home, database_url, tmp_path) -> Iterator[tuple[Served, FakeIssuer]]:
    """The app in OAuth mode over HTTP, taking the issuer's tokens for its own /mcp URL; the issuer beside it."""
    port = free_port()
    issuer = FakeIssuer(resource=f"http://127.0.0.1:{port}/mcp")
    settings = {"auth": "oauth", "oauth_issuer": ISSUER, "oauth_resource": issuer.resource, "port": port}
    # No cooldown: each new key id is looked up at once (the cooldown has tests of its own, with a frozen clock).
    settings["oauth_keys_cooldown"] = "0"
    with serving_worlds(worlds_home, database_url, tmp_path, issuer=issuer.transport, **settings) as served:
        yield served, issuer


def post(served: Served, body: dict[str, Any], token: str | None, path: str = "/mcp") -> httpx.Response:
    """POST `body` as JSON with `token` as the bearer token (none when None)."""
    headers = {"Accept": "application/json, text/event-stream"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.post(f"{served.url}{path}", json=body, headers=headers, timeout=30)


async def test_the_protected_resource_metadata_names_the_issuer_at_both_well_known_urls(oauth):
    served, issuer = oauth
    expected = {
        "resource": issuer.resource,
        "authorization_servers": [ISSUER],
        "scopes_supported": ["tickets:read", "tickets:write", ADMIN_SCOPE],
        "bearer_methods_supported": ["header"],
        "resource_name": "aftersales",
    }
    for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"):
        answer = httpx.get(served.url + path)
        assert answer.status_code == 200 and answer.json() == expected, path


async def test_without_a_token_the_401_points_at_the_metadata_with_the_scopes_and_no_error_code(oauth):
    served, _ = oauth
    answer = post(served, INITIALIZE, None)
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == (
        f'Bearer resource_metadata="{served.url}/.well-known/oauth-protected-resource/mcp", '
        'scope="tickets:read tickets:write"'
    )
    assert "authorization server" in answer.json()["what_to_do"]


@pytest.mark.parametrize(
    ("claims", "reason"),
    [
        ({"exp": 1_700_000_000}, "expired at"),
        ({"aud": "https://other.example/mcp"}, "not issued for this resource"),
        ({"iss": "https://evil.example"}, "not issued by"),
    ],
)
async def test_a_refused_access_token_is_401_invalid_token_with_the_reason_and_the_metadata(oauth, claims, reason):
    served, issuer = oauth
    answer = post(served, INITIALIZE, issuer.token(**claims))
    assert answer.status_code == 401 and reason in answer.json()["error_description"]
    challenge = answer.headers["www-authenticate"]
    assert challenge.startswith(f'Bearer resource_metadata="{served.url}/.well-known/oauth-protected-resource/mcp"')
    assert 'error="invalid_token"' in challenge and "error_description=" in challenge and reason in challenge


@pytest.mark.parametrize(
    ("forge", "reason"),
    [
        (lambda issuer: unsigned_token(issuer.claims(), issuer.signing.kid), "signed with 'none'"),
        (lambda issuer: hmac_with_public_key(issuer.claims(), issuer.signing), "signed with 'HS256'"),
        (lambda issuer: issuer.token(key=ec_key(issuer.signing.kid)), "signature does not verify"),
        (lambda issuer: "eyJhbGciOi.not-a-header.x", "not a JWT access token"),
    ],
    ids=["alg-none", "hs256-with-the-public-key", "forged-signature", "malformed-header"],
)
async def test_a_forged_or_malformed_token_is_401_never_5xx(oauth, forge, reason):
    served, issuer = oauth
    answer = post(served, INITIALIZE, forge(issuer))
    assert answer.status_code == 401 and reason in answer.json()["error_description"]


async def test_a_machine_client_calls_the_tools_with_its_access_token(oauth, mode, stories):
    served, issuer = oauth
    ticket_id = stories["ticket_awaiting_return"]["ticket_id"]
    async with connect_http(served.url, issuer.token(scope="tickets:read"), mode) as client:
        result = await client.call_tool("after_sales_query_ticket", {"ticket_id": ticket_id})
    assert not result.is_error and result.structured_content["ticket_id"] == ticket_id


async def test_a_tool_call_the_scopes_do_not_cover_is_403_insufficient_scope_naming_what_it_needs(oauth):
    served, issuer = oauth
    answer = post(served, CREATE, issuer.token(scope="tickets:read"))
    assert answer.status_code == 403 and answer.json()["error"] == "insufficient_scope"
    assert answer.headers["www-authenticate"] == (
        f'Bearer resource_metadata="{served.url}/.well-known/oauth-protected-resource/mcp", '
        'scope="tickets:read tickets:write", error="insufficient_scope", '
        'error_description="this request needs the scope tickets:write, which the access token does not hold"'
    )
    assert post(served, INITIALIZE, issuer.token(scope="tickets:read")).status_code == 200


async def test_a_token_with_no_tool_scope_is_403_on_any_request(oauth):
    served, issuer = oauth
    answer = post(served, INITIALIZE, issuer.token(scope="openid profile"))
    assert answer.status_code == 403 and 'scope="tickets:read"' in answer.headers["www-authenticate"]


async def test_a_key_rotated_at_the_issuer_is_used_without_a_restart_and_an_unpublished_key_is_refused(oauth):
    served, issuer = oauth
    assert post(served, INITIALIZE, issuer.token()).status_code == 200
    issuer.rotate(keep_old=False)
    assert post(served, INITIALIZE, issuer.token()).status_code == 200
    answer = post(served, INITIALIZE, issuer.token(key=ec_key("never-published")))
    assert answer.status_code == 401 and 'key "never-published"' in answer.json()["error_description"]


async def test_while_the_issuer_is_down_known_keys_work_and_a_new_key_is_retryable(oauth):
    served, issuer = oauth
    assert post(served, INITIALIZE, issuer.token()).status_code == 200
    issuer.up = False
    assert post(served, INITIALIZE, issuer.token(jti="another")).status_code == 200
    issuer.rotate()
    answer = post(served, INITIALIZE, issuer.token())
    assert answer.status_code == 503 and int(answer.headers["retry-after"]) >= 1
    assert "cannot be reached" in answer.json()["error_description"]
    admin = httpx.get(
        f"{served.url}/admin/worlds", headers={"Authorization": f"Bearer {issuer.token(scope=ADMIN_SCOPE)}"}
    )
    assert admin.status_code == 503 and int(admin.headers["retry-after"]) >= 1
    issuer.up = True
    assert post(served, INITIALIZE, issuer.token()).status_code == 200


async def test_the_admin_api_takes_the_issuers_worlds_admin_token_and_its_world_tokens_still_work(oauth):
    served, issuer = oauth
    with WorldsClient(served.url, issuer.token(scope=ADMIN_SCOPE)) as admin:
        world = admin.create(world_id="w-oauth")
    assert post(served, INITIALIZE, world.token).status_code == 200
    refused = httpx.get(f"{served.url}/admin/worlds", headers={"Authorization": f"Bearer {issuer.token()}"})
    assert refused.status_code == 403
    assert 'scope="tickets:read tickets:write worlds:admin"' in refused.headers["www-authenticate"]


async def test_a_token_this_server_signed_for_no_world_is_refused_in_oauth_mode(oauth):
    served, _ = oauth
    answer = post(served, INITIALIZE, bearer_token(served.app.caller_keys))
    assert answer.status_code == 401 and "open worlds only" in answer.json()["error_description"]

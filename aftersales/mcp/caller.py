"""The calling principal, as the SDK's auth context carries it."""

from collections.abc import Iterator
from contextlib import contextmanager

from mcp.server.auth.middleware.auth_context import auth_context_var, get_access_token
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken

from aftersales.domain.callers import Caller
from aftersales.domain.errors import PermissionDenied
from aftersales.security.access_tokens import AccessClaims


def access_token_for(caller: Caller, expires_at: int | None = None, world: str | None = None) -> AccessToken:
    """The SDK's view of a caller; the raw bearer token is deliberately not kept in it.

    A world is part of the principal (as its issuer): the SDK compares (client, issuer, subject) to decide who owns
    a 2025-11-25 session and seals the same into requestState, so a session or a round opened in one world is
    never continued in another.
    """
    return AccessToken(
        token=f"caller:{caller.id}",
        client_id=caller.id,
        subject=caller.id,
        scopes=sorted(caller.scopes),
        expires_at=expires_at,
        claims=None if world is None else {"iss": f"aftersales/world/{world}"},
    )


def oauth_access_token(claims: AccessClaims, resource: str) -> AccessToken:
    """The SDK's view of an OAuth access token's caller: the caller id as subject, the issuer as the SDK's `iss`.

    The client the token was issued to stays the client_id; the subject is the caller id (the person, or the client
    itself for a machine client), so quotes, idempotency keys and requestState are owned by the caller, and a
    session or round opened with one issuer's token is never continued with another's.
    """
    return AccessToken(
        token=f"oauth:{claims.caller.id}",
        client_id=claims.client_id,
        subject=claims.caller.id,
        scopes=sorted(claims.caller.scopes),
        expires_at=int(claims.expires_at.timestamp()),
        resource=resource,
        claims={"iss": claims.issuer},
    )


def caller_id(subject: str | None, client_id: str) -> str:
    """Who a token speaks for: its subject, or the client it was issued to."""
    return subject or client_id


def current_caller_id() -> str:
    """The id of the caller behind the request in hand, or "anonymous" when there is none."""
    token = get_access_token()
    return caller_id(token.subject, token.client_id) if token else "anonymous"


def authorize(scope: str, tool: str) -> Caller:
    """The current caller, if it holds `scope`; otherwise a three-part permission error."""
    token = get_access_token()
    if token is None:
        raise PermissionDenied(
            f"{tool} was called without an authenticated caller.",
            "Every call must carry a bearer token issued by this server.",
            "Do not retry; the operator must configure the client with a token (aftersales token issue).",
        )
    caller = Caller(id=caller_id(token.subject, token.client_id), scopes=frozenset(token.scopes))
    caller.require(scope, tool)
    return caller


@contextmanager
def acting_as(caller: Caller) -> Iterator[None]:
    """Run the enclosed code (and tasks it starts) as `caller`: stdio's local caller, or a test's."""
    reset = auth_context_var.set(AuthenticatedUser(access_token_for(caller)))
    try:
        yield
    finally:
        auth_context_var.reset(reset)

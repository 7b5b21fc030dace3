"""OAuth mode (AFTERSALES_AUTH=oauth): access tokens checked against the issuer, the Protected Resource Metadata
(RFC 9728), and the challenges the MCP authorization specification asks for on 401 and 403.

The metadata is served with the SDK's own route and model (create_protected_resource_routes, at the path the
resource's URL gives, and the same document at the root well-known path too).
"""

import json
from dataclasses import dataclass, field
from datetime import datetime

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.routes import build_resource_metadata_url, create_protected_resource_routes
from mcp.shared.auth import ProtectedResourceMetadata
from starlette.authentication import AuthCredentials
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from aftersales.domain.callers import ALL_SCOPES, READ, scope_for
from aftersales.domain.calls import TOOL_NAMES
from aftersales.mcp.caller import oauth_access_token
from aftersales.security.access_tokens import Expected, IssuerKey, check, key_id
from aftersales.security.issuer_keys import IssuerKeys
from aftersales.security.tokens import TokenClaims
from aftersales.settings import Settings
from aftersales.worlds.model import ADMIN_SCOPE

WELL_KNOWN = "/.well-known/oauth-protected-resource"
SCOPES_SUPPORTED = [*ALL_SCOPES, ADMIN_SCOPE]
HOW_TO = (
    "Get an access token for this resource from the authorization server named in the protected resource metadata "
    "(resource_metadata in the WWW-Authenticate header): with the resource parameter set to this server's URL, and "
    "the scopes tickets:read and tickets:write; a machine client uses the client-credentials grant."
)


@dataclass(frozen=True)
class OAuthCallers:
    """Who an access token speaks for, checked against the issuer's keys; the 401 and 403 challenges."""

    keys: IssuerKeys
    expected: Expected
    # The key each remembered token was checked with: a token whose key the issuer has since dropped is refused.
    _checked_with: dict[str, IssuerKey] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_settings(cls, settings: Settings, keys: IssuerKeys) -> "OAuthCallers":
        """The checks AFTERSALES_OAUTH_* configure."""
        assert settings.oauth_issuer and settings.oauth_resource  # Settings refuses oauth mode without them
        return cls(keys, Expected(settings.oauth_issuer, settings.oauth_resource, settings.oauth_leeway))

    async def verify(self, token: str, now: datetime) -> tuple[TokenClaims, AuthenticatedUser, AuthCredentials]:
        """The caller of a valid access token, as BearerAuth keeps it; InvalidToken or KeysUnavailable otherwise."""
        key = await self.keys.key(key_id(token))
        claims = check(token, key, self.expected, now)
        if len(self._checked_with) >= 4096:  # BearerAuth forgets its tokens at the same size
            self._checked_with.clear()
        self._checked_with[token] = key
        user = AuthenticatedUser(oauth_access_token(claims, self.expected.resource))
        # Remembered until the leeway past `exp` has gone, as long as `check` accepts it.
        held = TokenClaims(caller=claims.caller, expires_at=claims.expires_at + self.expected.leeway)
        return held, user, AuthCredentials(sorted(claims.caller.scopes))

    def still_published(self, token: str) -> bool:
        """Whether the key a remembered token was checked with is still among the issuer's keys."""
        key = self._checked_with.get(token)
        return key is not None and self.keys.holds(key)

    def issued(self, user: object) -> bool:
        """Whether a request's principal came with this issuer's access token (not a world token)."""
        token = getattr(user, "access_token", None)
        return bool(token and token.claims and token.claims.get("iss") == self.expected.issuer)

    @property
    def metadata_url(self) -> str:
        """Where this resource's metadata is (RFC 9728 §3.1: the well-known path with the resource's path after it)."""
        return str(build_resource_metadata_url(self.metadata.resource))

    @property
    def metadata(self) -> ProtectedResourceMetadata:
        """The Protected Resource Metadata document."""
        return ProtectedResourceMetadata.model_validate(
            {
                "resource": self.expected.resource,  # validated from strings, so their spelling is kept exactly
                "authorization_servers": [self.expected.issuer],
                "scopes_supported": SCOPES_SUPPORTED,
                "resource_name": "aftersales",
            }
        )

    def routes(self) -> list[BaseRoute]:
        """The metadata at the resource's path-suffixed well-known URL, and at the root one for clients that try it."""
        metadata = self.metadata
        suffixed = create_protected_resource_routes(
            metadata.resource, metadata.authorization_servers, SCOPES_SUPPORTED, resource_name="aftersales"
        )
        routes: list[BaseRoute] = list(suffixed)
        if all(route.path != WELL_KNOWN for route in suffixed):
            routes.append(Route(WELL_KNOWN, suffixed[0].endpoint, methods=["GET", "OPTIONS"]))
        return routes

    def challenge(self, error: str | None = None, description: str = "", scopes: tuple[str, ...] = ALL_SCOPES) -> str:
        """A WWW-Authenticate value: resource_metadata and scope always, error and its description when given."""
        parts = [f'resource_metadata="{self.metadata_url}"', f'scope="{" ".join(scopes)}"']
        if error:
            parts.append(f'error="{error}"')
            if description:
                parts.append(f'error_description="{_quotable(description)}"')
        return "Bearer " + ", ".join(parts)


def _quotable(text: str) -> str:
    """`text` as a quoted-string may hold it: no double quote, backslash or control character."""
    return "".join(char if char.isprintable() and char not in '"\\' else "'" for char in text)


class ScopeChallenge:
    """ASGI middleware: a tools/call with an access token lacking the tool's scope is HTTP 403 insufficient_scope.

    So a host that follows the specification can step up (ask the authorization server for the scope) instead of
    reading a tool error; a token holding no tool scope at all is refused the same way on any request. World tokens
    (issued by this server, not by the issuer) keep today's tool error naming the missing scope.
    """

    def __init__(self, app: ASGIApp, callers: OAuthCallers, prefix: str = "/mcp") -> None:
        self.app, self.callers, self.prefix = app, callers, prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass on anything but an OAuth caller's POST to /mcp; peek at its body for the tool it calls."""
        if (
            scope["type"] != "http"
            or scope["method"] != "POST"
            or not scope["path"].startswith(self.prefix)
            or not self.callers.issued(scope.get("user"))
        ):
            await self.app(scope, receive, send)
            return
        first = await receive()  # WholeBodies has read the whole body: it comes in this one message
        held = frozenset(scope["auth"].scopes) & frozenset(ALL_SCOPES)
        needed = _needed(first.get("body", b""))
        if held and (needed is None or needed in held):
            await self.app(scope, _replaying(first, receive), send)
            return
        wanted = tuple(sorted(held | {needed or READ}))  # what it holds too, so stepping up loses nothing
        description = f"this request needs the scope {needed or READ}, which the access token does not hold"
        body = {"error": "insufficient_scope", "error_description": f"{description}.", "what_to_do": HOW_TO}
        content = json.dumps(body).encode()
        header = self.callers.challenge("insufficient_scope", description, wanted)
        await send(
            {
                "type": "http.response.start",
                "status": 403,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(content)).encode()),
                    (b"www-authenticate", header.encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": content})


def _needed(body: bytes) -> str | None:
    """The scope the tool a tools/call names needs; None for any other message (or a body that is not JSON)."""
    try:
        message = json.loads(body)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return None
    params = message.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    return scope_for(name) if name in TOOL_NAMES else None


def _replaying(first: Message, receive: Receive) -> Receive:
    """`receive` with `first` given back once more, to the app behind."""
    pending: list[Message] = [first]

    async def replay() -> Message:
        return pending.pop() if pending else await receive()

    return replay

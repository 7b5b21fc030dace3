"""Bearer authentication for /mcp: a verified caller token or HTTP 401."""

import json

from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from starlette.authentication import AuthCredentials
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from aftersales.clock import now
from aftersales.mcp.caller import access_token_for
from aftersales.security.tokens import InvalidToken, TokenClaims, verify

HOW_TO = "Send 'Authorization: Bearer <token>'; the operator issues tokens with `aftersales token issue --caller NAME`."


class BearerAuth:
    """ASGI middleware: authenticate requests under `prefix`; put the caller where the SDK looks for it."""

    def __init__(self, app: ASGIApp, keys: list[str], prefix: str = "/mcp") -> None:
        self.app, self.keys, self.prefix = app, keys, prefix
        # Verified tokens by value: checking a signature on every request of a busy caller is wasted work.
        self._verified: dict[str, TokenClaims] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass through non-MCP traffic; answer 401 or run the request as the token's caller."""
        if scope["type"] != "http" or not scope["path"].startswith(self.prefix):
            await self.app(scope, receive, send)
            return
        header = Headers(scope=scope).get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            await _unauthorized("the request has no bearer token", send)
            return
        try:
            claims = self._claims(token.strip())
        except InvalidToken as problem:
            await _unauthorized(str(problem), send)
            return
        if claims.world is not None:  # until requests are routed into worlds (docs/worlds.md), never the default's data
            await _unauthorized(f'the token is bound to world "{claims.world}", which this server does not serve', send)
            return
        user = AuthenticatedUser(access_token_for(claims.caller, int(claims.expires_at.timestamp())))
        # scope["user"] lets the SDK tie sessions to the caller; the context var feeds get_access_token().
        scope["user"], scope["auth"] = user, AuthCredentials(sorted(claims.caller.scopes))
        reset = auth_context_var.set(user)
        try:
            await self.app(scope, receive, send)
        finally:
            auth_context_var.reset(reset)

    def _claims(self, token: str) -> TokenClaims:
        """Verify a token, remembering good ones; expiry is checked on every use."""
        moment = now()
        claims = self._verified.get(token)
        if claims is None:
            claims = verify(self.keys, token, moment)
            if len(self._verified) >= 4096:
                self._verified.clear()
            self._verified[token] = claims
        elif moment >= claims.expires_at:
            del self._verified[token]
            raise InvalidToken(f"the bearer token expired at {claims.expires_at:%Y-%m-%d %H:%M} UTC")
        return claims


async def _unauthorized(reason: str, send: Send) -> None:
    """HTTP 401 with WWW-Authenticate and a short JSON body that says what to do."""
    body = json.dumps({"error": "invalid_token", "error_description": f"{reason}.", "what_to_do": HOW_TO}).encode()
    challenge = f'Bearer realm="aftersales", error="invalid_token", error_description="{reason}"'
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"www-authenticate", challenge.encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})

"""Bearer authentication for /mcp: a verified caller token or HTTP 401; a token bound to a world runs in it.

A world is looked up without database I/O on the event loop (worlds/routing.py); a token naming a world that is
not live (dropped, expired, never created, or still being made) gets HTTP 404 and never another world's data.
"""

import json
from collections.abc import Callable
from contextlib import ExitStack

from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from starlette.authentication import AuthCredentials
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from aftersales.clock import now
from aftersales.mcp.caller import access_token_for
from aftersales.security.issuer_keys import KeysUnavailable
from aftersales.security.keys import listed
from aftersales.security.tokens import InvalidToken, TokenClaims, UnsignedToken, verify
from aftersales.settings import Settings
from aftersales.web.oauth import HOW_TO as OAUTH_HOW_TO
from aftersales.web.oauth import OAuthCallers
from aftersales.worlds.routing import WorldRouter
from aftersales.worlds.world_errors import UnknownWorld

HOW_TO = "Send 'Authorization: Bearer <token>'; the operator issues tokens with `aftersales token issue --caller NAME`."
WORLD_HOW_TO = (
    "Do not retry with this token. Create or fork a world (aftersales world create, or POST /admin/worlds) and use "
    "the token printed with it, or a token without a world for the default data."
)

RECREATED_HOW_TO = (
    "The world with that id was made again, and a token names one creation of a world: do not retry with this token. "
    "Issue a new token for the world as it is now (POST /admin/worlds/ID/tokens, or aftersales token issue --world "
    "ID) and use that."
)


def unsigned_how_to(settings: Settings) -> str:
    """What to do about a token these keys did not sign: where this server's keys come from, and how to match them."""
    if listed(settings.secret_keys):
        source, same = "the keys in AFTERSALES_SECRET_KEYS", "the same AFTERSALES_SECRET_KEYS"
    else:  # development: the key generated in the data dir, which `token issue` also reads
        source, same = f"the key kept in its data dir, {settings.data_dir}", "the same data dir (AFTERSALES_DATA_DIR)"
    return (
        f"This server verifies tokens with {source}: a token signed with other keys is refused. Issue the token with "
        f"`aftersales token issue --caller NAME` run with {same}."
    )


# A verified token's claims, and the principal built from them once: the SDK's user and Starlette's credentials.
Verified = tuple[TokenClaims, AuthenticatedUser, AuthCredentials]


class BearerAuth:
    """ASGI middleware: authenticate requests under `prefix`; put the caller where the SDK looks for it."""

    def __init__(
        self,
        app: ASGIApp,
        keys: list[str],
        router: Callable[[], WorldRouter] | None = None,
        prefix: str = "/mcp",
        unsigned: str = HOW_TO,
        oauth: OAuthCallers | None = None,
    ) -> None:
        """`unsigned`: what to do about a token none of `keys` signed (see unsigned_how_to). With `oauth`, callers
        bring the issuer's access tokens, and a token signed with `keys` is taken only when bound to a world."""
        self.app, self.keys, self.prefix, self._router, self._unsigned = app, keys, prefix, router, unsigned
        self._oauth = oauth
        # Verified tokens by value, with the principal built from each: checking a signature and building the SDK's
        # view of the caller on every request of a busy caller is wasted work.
        self._verified: dict[str, Verified] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass through non-MCP traffic; answer 401 or run the request as the token's caller."""
        if scope["type"] != "http" or not scope["path"].startswith(self.prefix):
            await self.app(scope, receive, send)
            return
        header = Headers(scope=scope).get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            await self._refuse("the request has no bearer token", send, absent=True)
            return
        try:
            claims, user, credentials = await self._claims(token.strip())
        except InvalidToken as problem:
            await self._refuse(str(problem), send, unsigned=isinstance(problem, UnsignedToken))
            return
        except KeysUnavailable as problem:
            await _retry_later(problem, send)
            return
        with ExitStack() as inside:
            if claims.world is not None:
                if self._router is None:
                    await _unknown_world(UnknownWorld(claims.world), send)
                    return
                router = self._router()
                try:
                    world = await router.resolve(claims.world)
                    if world.incarnation != claims.made:  # made again meanwhile, or a stale cache: read it afresh
                        router.forget(claims.world)
                        world = await router.resolve(claims.world)
                except UnknownWorld as unknown:
                    await _unknown_world(unknown, send)
                    return
                if world.incarnation != claims.made:
                    await self._refuse(
                        f'the bearer token is for an earlier world "{world.id}", dropped since', send, RECREATED_HOW_TO
                    )
                    return
                # The world's clock, ids and database, for this request and the tool calls it carries.
                inside.enter_context(router.entered(world))
            # scope["user"] lets the SDK tie sessions to the caller; the context var feeds get_access_token().
            scope["user"], scope["auth"] = user, credentials
            reset = auth_context_var.set(user)
            try:
                await self.app(scope, receive, send)
            finally:
                auth_context_var.reset(reset)

    async def _claims(self, token: str) -> Verified:
        """Verify a token, remembering good ones with their principal; expiry is checked on every use."""
        moment = now()
        verified = self._verified.get(token)
        oauth = self._oauth
        if (
            verified is not None
            and oauth is not None
            and verified[0].world is None
            and not oauth.still_published(token)
        ):
            del self._verified[token]  # its key was dropped at a refresh since: check it again
            verified = None
        if verified is None:
            try:
                claims = verify(self.keys, token, moment)
            except UnsignedToken:
                if self._oauth is None:
                    raise
                verified = await self._oauth.verify(token, moment)  # not ours: the issuer's access token, or nothing
            else:
                if self._oauth is not None and claims.world is None:
                    raise InvalidToken(
                        "the bearer token was signed by this server for no world, and in OAuth mode this server's "
                        "own tokens open worlds only"
                    )
                user = AuthenticatedUser(
                    access_token_for(claims.caller, int(claims.expires_at.timestamp()), claims.world)
                )
                # Every request with this token gets these same objects, concurrently: nothing may change them.
                verified = (claims, user, AuthCredentials(sorted(claims.caller.scopes)))
            if len(self._verified) >= 4096:
                self._verified.clear()
            self._verified[token] = verified
        elif moment >= verified[0].expires_at:
            del self._verified[token]
            raise InvalidToken(f"the bearer token expired at {verified[0].expires_at:%Y-%m-%d %H:%M} UTC")
        return verified

    async def _refuse(
        self, reason: str, send: Send, what_to_do: str | None = None, unsigned: bool = False, absent: bool = False
    ) -> None:
        """HTTP 401; in OAuth mode with the challenge that leads a host to the issuer (resource_metadata, scope)."""
        if self._oauth is None:
            await _unauthorized(reason, send, what_to_do or (self._unsigned if unsigned else HOW_TO))
            return
        # A request without a token gets no error code (RFC 6750 §3.1): it has not done anything wrong yet.
        challenge = self._oauth.challenge(None if absent else "invalid_token", reason)
        await _unauthorized(reason, send, what_to_do or OAUTH_HOW_TO, challenge)


async def _unauthorized(reason: str, send: Send, what_to_do: str = HOW_TO, challenge: str | None = None) -> None:
    """HTTP 401 with WWW-Authenticate and a short JSON body that says what to do."""
    body = {"error": "invalid_token", "error_description": f"{reason}.", "what_to_do": what_to_do}
    challenge = challenge or f'Bearer realm="aftersales", error="invalid_token", error_description="{reason}"'
    await _answer(401, body, send, [(b"www-authenticate", challenge.encode())])


async def _retry_later(problem: KeysUnavailable, send: Send) -> None:
    """HTTP 503 with Retry-After: the token may be good, but the keys to check it cannot be had right now."""
    body = {
        "error": "temporarily_unavailable",
        "error_description": f"{problem}.",
        "what_to_do": f"Retry the same request with the same token in {problem.retry_after} seconds.",
    }
    await _answer(503, body, send, [(b"retry-after", str(problem.retry_after).encode())])


async def _unknown_world(unknown: UnknownWorld, send: Send) -> None:
    """HTTP 404: the token is good, but the world it names is not served (any more)."""
    body = {"error": "unknown_world", "error_description": f"{unknown.what} {unknown.rule}", "what_to_do": WORLD_HOW_TO}
    await _answer(404, body, send)


RawHeaders = list[tuple[bytes, bytes]]


async def _answer(status: int, body: dict[str, str], send: Send, extra: RawHeaders | None = None) -> None:
    """A JSON answer sent straight from the middleware."""
    content = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(content)).encode()),
                *(extra or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": content})

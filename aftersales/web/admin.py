"""The worlds admin API under /admin/worlds: the CLI's world operations over HTTP, for harnesses in any language.

Authenticated by caller tokens holding the `worlds:admin` scope (the tool scopes do not open it); in OAuth mode by
the issuer's access tokens with that scope too. Every operation
runs on a worker thread (creating a world from a large dataset takes seconds); errors are JSON
`{"error": kind, "message": three-part message}` with the status the error names. On when AFTERSALES_WORLDS_ADMIN
says so; by default in development only.
"""

import json
import logging
import uuid
from collections.abc import Callable
from functools import partial
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route

from aftersales.app import App
from aftersales.clock import now
from aftersales.domain.callers import ALL_SCOPES
from aftersales.domain.errors import AfterSalesError
from aftersales.security.issuer_keys import KeysUnavailable
from aftersales.security.tokens import InvalidToken, UnsignedToken, verify
from aftersales.web.auth import unsigned_how_to
from aftersales.web.oauth import OAuthCallers
from aftersales.worlds import api, inspect
from aftersales.worlds.model import ADMIN_SCOPE
from aftersales.worlds.timeline import describe
from aftersales.worlds.trace import lines
from aftersales.worlds.world_errors import WorldError

log = logging.getLogger(__name__)
PREFIX = "/admin/worlds"
TRACE_SHAPES: dict[str, Callable[[Any], Response]] = {
    "jsonl": lambda entries: Response(lines(entries), media_type="application/jsonl"),
    "json": lambda entries: JSONResponse({"entries": entries}),
    "text": lambda entries: PlainTextResponse(describe(entries) + "\n"),
}
HOW_TO = (
    "Send 'Authorization: Bearer <token>' with a token holding the worlds:admin scope; the operator issues one with "
    "`aftersales token issue --caller harness --scopes worlds:admin` (in OAuth mode, the authorization server "
    "issues it: an access token for this server's /mcp URL with the scope worlds:admin)."
)


def admin_routes(app: App, texts: api.Texts | None = None, oauth: OAuthCallers | None = None) -> list[BaseRoute]:
    """The admin API's routes: the collection, and each world's operations mounted under it.

    `texts` reads a new world's "tool_descriptions" (the served tools' description sets); None refuses the field.
    With `oauth`, the issuer's access tokens holding worlds:admin are accepted beside this server's own tokens.
    """
    admin = WorldsAdmin(app, texts, oauth)
    one_world = [
        Route("/{world_id}", admin.one, methods=["GET", "DELETE"]),
        Route("/{world_id}/fork", admin.fork, methods=["POST"]),
        Route("/{world_id}/reset", admin.reset, methods=["POST"]),
        Route("/{world_id}/clock", admin.clock, methods=["POST"]),
        Route("/{world_id}/tokens", admin.tokens, methods=["POST"]),
        Route("/{world_id}/snapshot", admin.snapshot, methods=["GET"]),
        Route("/{world_id}/hash", admin.hash, methods=["GET"]),
        Route("/{world_id}/diff", admin.diff, methods=["GET", "POST"]),
        Route("/{world_id}/trace", admin.trace, methods=["GET"]),
    ]
    return [Route(PREFIX, admin.collection, methods=["GET", "POST"]), Mount(PREFIX, routes=one_world)]


class WorldsAdmin:
    """The handlers: authenticate, read the body, run the operation off the event loop, answer."""

    def __init__(self, app: App, texts: api.Texts | None = None, oauth: OAuthCallers | None = None) -> None:
        self.app, self._texts, self._oauth = app, texts, oauth

    async def collection(self, request: Request) -> Response:
        """GET: every world. POST: create one (201, with a token bound to it)."""
        if (refusal := await self._refusal(request)) is not None:
            return refusal
        if request.method == "GET":
            return await self._run(lambda: api.listing(self.app.worlds))
        body = await _body(request)
        if isinstance(body, Response):
            return body
        return await self._run(partial(api.create, self.app.worlds, body, _mcp_url(request), self._texts), status=201)

    async def one(self, request: Request) -> Response:
        """GET: the world. DELETE: drop it (204)."""
        if (refusal := await self._refusal(request)) is not None:
            return refusal
        world_id = request.path_params["world_id"]
        if request.method == "GET":
            return await self._run(partial(api.show, self.app.worlds, world_id))
        return await self._run(partial(self.app.worlds.drop, world_id), status=204, changes=world_id)

    async def fork(self, request: Request) -> Response:
        """A new world holding this one's current state (201)."""
        url = _mcp_url(request)
        return await self._with_body(request, lambda body, source: api.fork(self.app.worlds, source, body, url), 201)

    async def reset(self, request: Request) -> Response:
        """Put the world back as it was created."""
        if (refusal := await self._refusal(request)) is not None:
            return refusal
        world_id = request.path_params["world_id"]
        return await self._run(partial(api.reset, self.app.worlds, world_id), changes=world_id)

    async def clock(self, request: Request) -> Response:
        """Advance ({"advance": "31m"}) or set ({"set": ISO-8601}) the world's clock."""
        worlds = self.app.worlds
        return await self._with_body(request, lambda body, world: api.move_clock(worlds, world, body), changes=True)

    async def tokens(self, request: Request) -> Response:
        """Another token bound to the world (201)."""
        worlds = self.app.worlds
        return await self._with_body(request, lambda body, world: api.issue_token(worlds, world, body), 201)

    async def snapshot(self, request: Request) -> Response:
        """The canonical snapshot (?audit=true includes the audit)."""
        if (refusal := await self._refusal(request)) is not None:
            return refusal
        world_id, audit = request.path_params["world_id"], _flag(request, "audit")
        return await self._run(partial(inspect.snapshot, self.app.worlds, world_id, audit))

    async def hash(self, request: Request) -> Response:
        """The hash of the canonical snapshot."""
        if (refusal := await self._refusal(request)) is not None:
            return refusal
        world_id, audit = request.path_params["world_id"], _flag(request, "audit")
        return await self._run(lambda: {"hash": inspect.world_hash(self.app.worlds, world_id, audit)})

    async def diff(self, request: Request) -> Response:
        """GET: against ?against=source (default) or a world id, ?tables=a,b for some tables. POST: a snapshot."""
        if (refusal := await self._refusal(request)) is not None:
            return refusal
        world_id = request.path_params["world_id"]
        if request.method == "GET":
            against, audit = request.query_params.get("against", "source"), _flag(request, "audit")
            tables = [name for name in request.query_params.get("tables", "").split(",") if name.strip()]
            return await self._run(partial(api.diff, self.app.worlds, world_id, against, audit, tables or None))
        body = await _body(request)
        if isinstance(body, Response):
            return body
        return await self._run(partial(api.diff_snapshot, self.app.worlds, world_id, body))

    async def trace(self, request: Request) -> Response:
        """The world's trace: JSON lines (default), ?format=json for one object, ?format=text for a person."""
        if (refusal := await self._refusal(request)) is not None:
            return refusal
        world_id, shape = request.path_params["world_id"], request.query_params.get("format", "jsonl")
        answer = TRACE_SHAPES.get(shape)
        if answer is None:
            return _error(
                400,
                "invalid_request",
                f"format={shape!r} is not a trace format. The trace is served as jsonl (the default), json or text. "
                "Ask for one of those.",
            )
        return await self._run(partial(self.app.worlds.trace, world_id), shape=answer)

    async def _with_body(
        self, request: Request, work: Callable[[Any, str], Any], status: int = 200, changes: bool = False
    ) -> Response:
        if (refusal := await self._refusal(request)) is not None:
            return refusal
        body = await _body(request)
        if isinstance(body, Response):
            return body
        world_id = request.path_params["world_id"]
        return await self._run(partial(work, body, world_id), status, world_id if changes else None)

    async def _run(
        self,
        work: Callable[[], Any],
        status: int = 200,
        changes: str | None = None,
        shape: Callable[[Any], Response] | None = None,
    ) -> Response:
        """Run `work` on a worker thread; a world it changed is read afresh by this process's next request."""
        try:
            result = await anyio.to_thread.run_sync(api.run, work)
        except WorldError as error:
            return _error(error.status, error.kind, str(error))
        except AfterSalesError as error:  # a database that does not answer is ServiceUnavailable, for one
            return _error(503 if error.retryable else 400, error.kind, str(error))
        except Exception:
            reference = uuid.uuid4().hex[:12]
            log.exception("a world operation failed, reference %s", reference)
            return _error(500, "internal", f"Internal error (reference {reference}). The server log has the details.")
        finally:
            if changes is not None:
                self.app.router.forget(changes)
        if shape is not None:
            return shape(result)
        if status == 204:
            return Response(status_code=204)
        return JSONResponse(result, status_code=status)

    async def _refusal(self, request: Request) -> Response | None:
        """401 without a valid token, 403 without the admin scope; None when the request may go on."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return _error(401, "invalid_token", f"The request has no bearer token. {HOW_TO}")
        moment = now()
        try:
            try:
                caller = verify(self.app.caller_keys, token.strip(), moment).caller
            except UnsignedToken:
                if self._oauth is None:
                    raise
                caller = (await self._oauth.verify(token.strip(), moment))[0].caller  # the issuer's access token
        except InvalidToken as problem:
            where = f" {unsigned_how_to(self.app.settings)}" if isinstance(problem, UnsignedToken) else ""
            return _error(401, "invalid_token", f"{str(problem).capitalize()}.{where} {HOW_TO}")
        except KeysUnavailable as problem:
            answer = _error(503, "unavailable", f"{str(problem).capitalize()}. Retry in {problem.retry_after} seconds.")
            answer.headers["Retry-After"] = str(problem.retry_after)
            return answer
        if ADMIN_SCOPE not in caller.scopes:
            held = ", ".join(sorted(caller.scopes)) or "none"
            answer = _error(
                403,
                "insufficient_scope",
                f'Caller "{caller.id}" may not administer worlds: its token holds {held}. The admin API '
                f"needs the {ADMIN_SCOPE} scope, which the tool scopes do not include. {HOW_TO}",
            )
            if self._oauth is not None:
                wanted = (*sorted(caller.scopes & {*ALL_SCOPES}), ADMIN_SCOPE)
                answer.headers["WWW-Authenticate"] = self._oauth.challenge(
                    "insufficient_scope", f"the admin API needs the scope {ADMIN_SCOPE}", wanted
                )
            return answer
        return None


async def _body(request: Request) -> Any:
    """The JSON body ({} when empty), or the 400 answer to a body that is not JSON."""
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except ValueError:
        return _error(400, "invalid_request", "The body is not JSON. The admin API takes a JSON object. Send one.")
    if not isinstance(body, dict):
        return _error(400, "invalid_request", "The body is not a JSON object. The admin API takes objects. Send one.")
    return body


def _flag(request: Request, name: str) -> bool:
    return request.query_params.get(name, "").lower() in ("1", "true", "yes")


def _mcp_url(request: Request) -> str:
    return str(request.base_url).rstrip("/") + "/mcp"


def _error(status: int, kind: str, message: str) -> JSONResponse:
    return JSONResponse({"error": kind, "message": message}, status_code=status)

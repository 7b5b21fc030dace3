"""Starlette app serving /mcp (Streamable HTTP), /healthz, /readyz, /metrics, when enabled /admin/worlds, and in
OAuth mode the protected resource metadata (/.well-known/oauth-protected-resource)."""

import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from aftersales.app import App
from aftersales.domain.errors import ServiceUnavailable
from aftersales.mcp.described import world_texts_of
from aftersales.mcp.server import build_server
from aftersales.settings import Settings
from aftersales.storage.migrate import HEAD, probed_revision
from aftersales.web.admin import admin_routes
from aftersales.web.auth import BearerAuth, unsigned_how_to
from aftersales.web.bodies import WholeBodies
from aftersales.web.oauth import OAuthCallers, ScopeChallenge
from aftersales.web.payout_page import payout_routes
from aftersales.web.resumption import StreamEvents
from aftersales.web.sessions import CallerSessionManager

log = logging.getLogger(__name__)
HOUSEKEEPING_EVERY = 60.0  # seconds between drops of unused worlds and closes of idle world connections


def readiness(app: App) -> tuple[bool, str]:
    """Whether the database answers and is migrated to head, with a reason when not."""
    try:
        current = probed_revision(app.engine)
    except ServiceUnavailable:
        return False, "database unreachable"
    if current != HEAD:
        return False, f"database at revision {current or 'none'}, code expects {HEAD}; run `aftersales db upgrade`"
    return True, "ready"


LOOPBACK = ("127.0.0.1", "localhost", "::1")
# What the SDK's own streamable_http_app() accepts on a loopback bind.
LOOPBACK_HOSTS = ("127.0.0.1:*", "localhost:*", "[::1]:*")
LOOPBACK_ORIGINS = ("http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*")


def transport_security(settings: Settings) -> TransportSecuritySettings:
    """DNS-rebinding protection: the configured hosts and origins, and on a loopback bind the loopback ones too."""
    hosts = [h.strip() for h in settings.allowed_hosts.split(",") if h.strip()]
    origins = [o.strip() for o in settings.allowed_origins.split(",") if o.strip()]
    if settings.host in LOOPBACK:
        # A reverse proxy on this machine forwards its public Host (and the browser's Origin): listed, they pass.
        hosts, origins = [*LOOPBACK_HOSTS, *hosts], [*LOOPBACK_ORIGINS, *origins]
    elif not hosts:
        raise ValueError(
            f"AFTERSALES_ALLOWED_HOSTS is empty but the server binds {settings.host}. List the Host headers clients "
            "use (for example aftersales.example.com,aftersales:8000) so DNS-rebinding protection stays on."
        )
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


def create_web_app(app: App, server: MCPServer | None = None) -> Starlette:
    """The ASGI app a deployment serves; `state.close_streams()` ends open streams when shutdown starts."""
    server = server or build_server(app)
    settings = app.settings
    sessions = CallerSessionManager(
        server._lowlevel_server,  # the SDK's own streamable_http_app() hands its manager the same object
        security_settings=transport_security(settings),
        session_idle_timeout=settings.session_idle_timeout.total_seconds(),
        per_caller=settings.sessions_per_caller,
        processes=settings.workers,
        # A question stays open as long as one input_required round lives, so its events are kept that long too.
        events=StreamEvents(max_age=settings.state_ttl.total_seconds()),
    )

    async def healthz(_: Request) -> JSONResponse:
        # The pid tells which process answered when `serve --workers N` runs several on one port.
        return JSONResponse({"status": "ok", "pid": os.getpid()})

    async def readyz(_: Request) -> JSONResponse:
        # The probe touches the database, so it runs on a worker thread, not the event loop.
        ready, reason = await anyio.to_thread.run_sync(readiness, app)
        return JSONResponse(
            {"status": "ready" if ready else "not_ready", "detail": reason}, status_code=200 if ready else 503
        )

    async def metrics(request: Request) -> Response:
        body, content_type = app.metrics.render(request.headers.get("accept", ""))
        return Response(body, headers={"Content-Type": content_type})

    keys = app.issuer_keys
    oauth = None if keys is None else OAuthCallers.from_settings(settings, keys)
    web = Starlette(
        routes=[
            Route("/mcp", endpoint=StreamableHTTPASGIApp(sessions)),
            *(oauth.routes() if oauth else []),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/readyz", readyz, methods=["GET"]),
            Route("/metrics", metrics, methods=["GET"]),
            *payout_routes(app),
            *(admin_routes(app, world_texts_of(server, settings), oauth) if settings.worlds_admin_enabled else []),
        ],
        lifespan=lambda _: lifespan(app, sessions),
    )
    web.state.close_streams = sessions.close_streams
    # Each add_middleware wraps the app so far: a request meets WorkerThreads, BearerAuth, WholeBodies, (in OAuth
    # mode) ScopeChallenge, then /mcp.
    if oauth is not None:
        web.add_middleware(ScopeChallenge, callers=oauth)
    web.add_middleware(WholeBodies)
    web.add_middleware(
        BearerAuth, keys=app.caller_keys, router=lambda: app.router, unsigned=unsigned_how_to(settings), oauth=oauth
    )
    web.add_middleware(WorkerThreads, count=settings.worker_threads)
    return web


@asynccontextmanager
async def lifespan(app: App, sessions: CallerSessionManager) -> AsyncIterator[None]:
    """Run the session manager and the worlds' housekeeping; at shutdown, write the queued audit records.

    A SIGTERM ends the process as soon as uvicorn returns, before any caller of uvicorn could close the app.
    """
    async with sessions.run(), anyio.create_task_group() as tasks:
        tasks.start_soon(housekeeping, app)
        try:
            yield
        finally:
            tasks.cancel_scope.cancel()
    if "audit" in app.__dict__:
        await anyio.to_thread.run_sync(app.audit.flush)
    if "database" in app.__dict__:
        await app.database.close()  # the asyncpg connections belong to this loop


async def housekeeping(app: App, every: float = HOUSEKEEPING_EVERY) -> None:
    """Every minute, in a process that has served worlds: drop unused worlds, close idle world connections."""
    while True:
        await anyio.sleep(every)
        if "worlds" not in app.__dict__:
            continue
        try:
            await anyio.to_thread.run_sync(app.worlds.expire)
        except Exception:
            log.exception("world housekeeping failed; it runs again in %s seconds", every)


class WorkerThreads:
    """Size the worker-thread pool that runs tools' database work off PostgreSQL's event loop when the app starts.

    Many threads contending for the GIL with the event loop cost more than they overlap: a few keep both busy.
    """

    def __init__(self, app: ASGIApp, count: int) -> None:
        self.app, self.count = app, count

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            anyio.to_thread.current_default_thread_limiter().total_tokens = self.count
        await self.app(scope, receive, send)

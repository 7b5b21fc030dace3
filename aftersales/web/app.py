"""Starlette app serving /mcp (Streamable HTTP), /healthz and /readyz."""

import anyio
from mcp.server.mcpserver import MCPServer
from sqlalchemy.exc import SQLAlchemyError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse

from aftersales.app import App
from aftersales.mcp.server import build_server
from aftersales.storage.migrate import current_revision, head_revision
from aftersales.web.auth import BearerAuth


def readiness(app: App) -> tuple[bool, str]:
    """Whether the database answers and is migrated to head, with a reason when not."""
    try:
        current = current_revision(app.engine)
    except SQLAlchemyError:
        return False, "database unreachable"
    head = head_revision()
    if current != head:
        return False, f"database at revision {current or 'none'}, code expects {head}; run `aftersales db upgrade`"
    return True, "ready"


def create_web_app(app: App, server: MCPServer | None = None) -> Starlette:
    """The ASGI app a deployment serves."""
    server = server or build_server(app)

    @server.custom_route("/healthz", methods=["GET"])
    async def healthz(_: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    @server.custom_route("/readyz", methods=["GET"])
    async def readyz(_: Request) -> JSONResponse:
        # The probe touches the database, so it runs on a worker thread, not the event loop.
        ready, reason = await anyio.to_thread.run_sync(readiness, app)
        return JSONResponse(
            {"status": "ready" if ready else "not_ready", "detail": reason}, status_code=200 if ready else 503
        )

    web = server.streamable_http_app(streamable_http_path="/mcp", host=app.settings.host)
    web.add_middleware(BearerAuth, keys=app.caller_keys)
    return web

"""`aftersales serve`: prepare the database and serve MCP over Streamable HTTP or stdio."""

import argparse
import logging
import sys
from datetime import timedelta

from aftersales.app import App
from aftersales.bootstrap import prepare
from aftersales.clock import now
from aftersales.domain.callers import ALL_SCOPES, Caller
from aftersales.mcp.caller import acting_as
from aftersales.mcp.server import build_server
from aftersales.security import tokens
from aftersales.settings import Settings
from aftersales.web import serving
from aftersales.web.app import create_web_app

CLIENT_SNIPPET = """\
Development token for caller "support-bot" (scopes tickets:read, tickets:write, valid 30 days):

    export AFTERSALES_TOKEN={token}

Connect with the Python SDK:

    import asyncio, os
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        headers = {{"Authorization": f"Bearer {{os.environ['AFTERSALES_TOKEN']}}"}}
        transport = streamable_http_client("{url}", http_client=httpx2.AsyncClient(headers=headers))
        async with Client(transport) as client:
            result = await client.call_tool("after_sales_query_ticket", {{"ticket_id": "T-2026-0357"}})
            print(result.structured_content)

    asyncio.run(main())

Or the MCP Inspector: npx @modelcontextprotocol/inspector, transport "Streamable HTTP", URL {url},
header "Authorization: Bearer <the token above>".
"""


def add(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register the serve command."""
    serve = commands.add_parser("serve", help="Migrate, seed when empty, and serve the MCP endpoint.")
    serve.add_argument("--host", help="Interface to bind (default 127.0.0.1, or AFTERSALES_HOST).")
    serve.add_argument("--port", type=int, help="Port (default 8000, or AFTERSALES_PORT).")
    serve.add_argument("--stdio", action="store_true", help="Serve one local client over stdin/stdout instead.")
    serve.set_defaults(run=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Prepare the database, then serve until interrupted."""
    updates = {k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None}
    settings = settings.model_copy(update=updates)
    logging.basicConfig(
        level=settings.log_level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s %(message)s"
    )
    app = App(settings)
    # Keys are checked before anything touches the database: a misconfigured production start changes nothing.
    keys = [] if args.stdio else app.caller_keys
    _ = app.state_keys
    report = prepare(app.engine, settings.seed_dir, seed_when_empty=settings.env == "development")
    logging.getLogger("alembic").setLevel(logging.WARNING)  # readiness probes would log a context line each
    say = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731  stdout belongs to stdio clients
    where = settings.resolved_database_url.split("@")[-1]
    say(
        f"aftersales: database {where} ready"
        + (f", baseline loaded ({report.inserted['tickets']} tickets)" if report else "")
    )
    if args.stdio:
        # One local client: every request runs as the configured stdio caller.
        with acting_as(Caller(settings.stdio_caller, frozenset(ALL_SCOPES))):
            build_server(app).run("stdio")
        return 0
    url = f"http://{settings.host}:{settings.port}/mcp"
    say(f"aftersales: serving MCP at {url}  (health: /healthz, readiness: /readyz)\n")
    if settings.env == "development":
        token = tokens.issue(keys, "support-bot", list(ALL_SCOPES), timedelta(days=30), now())
        say(CLIENT_SNIPPET.format(url=url, token=token))
    serving.run(
        create_web_app(app),
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level.lower(),
        timeout_graceful_shutdown=20,
    )
    app.close()
    return 0

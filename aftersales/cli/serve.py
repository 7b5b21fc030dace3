"""`aftersales serve`: prepare the database and serve MCP over Streamable HTTP or stdio."""

import argparse
import logging
import sys

import uvicorn

from aftersales.app import App
from aftersales.bootstrap import prepare
from aftersales.mcp.server import build_server
from aftersales.settings import Settings
from aftersales.web.app import create_web_app

CLIENT_SNIPPET = """\
Connect with the Python SDK:

    import asyncio
    from mcp import Client

    async def main():
        async with Client("{url}") as client:
            result = await client.call_tool("after_sales_query_ticket", {{"ticket_id": "T-2026-0266"}})
            print(result.structured_content)

    asyncio.run(main())

Or with the MCP Inspector: npx @modelcontextprotocol/inspector, transport "Streamable HTTP", URL {url}
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
    report = prepare(app.engine, settings.seed_dir)
    say = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731  stdout belongs to stdio clients
    where = settings.resolved_database_url.split("@")[-1]
    say(
        f"aftersales: database {where} ready"
        + (f", baseline loaded ({report.inserted['tickets']} tickets)" if report else "")
    )
    if args.stdio:
        build_server(app).run("stdio")
        return 0
    url = f"http://{settings.host}:{settings.port}/mcp"
    say(f"aftersales: serving MCP at {url}  (health: /healthz, readiness: /readyz)\n")
    say(CLIENT_SNIPPET.format(url=url))
    uvicorn.run(
        create_web_app(app),
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level.lower(),
        timeout_graceful_shutdown=20,
    )
    app.close()
    return 0

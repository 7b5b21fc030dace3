"""The demo server: the page, its small JSON API, and the MCP endpoints the demo's clients talk to.

/mcp is the server's own web app (auth, worlds routing and all) on the demo's control database; each column's token
is bound to a fork of the demo world. /short-rounds/mcp is a second server on the same worlds and keys whose
input_required rounds live a few seconds, for the expired case: requestState's lifetime is the SDK's wall-clock TTL,
fixed when the server is built, so neither a world's clock nor a setting per request can make one round expire.
The page may point the columns at another running aftersales server instead (/api/target, with its token): the
cases then run on that server's data, with the same panes.
"""

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from aftersales.app import App
from aftersales.demo import export
from aftersales.demo.cases import BY_KEY, CASES
from aftersales.demo.column import LEGACY, MODERN, Column
from aftersales.demo.stage import Answer, Run, Stage
from aftersales.demo.target import Target, TargetRefused, connect
from aftersales.demo.worlds import DemoWorlds, Endpoint
from aftersales.settings import Settings
from aftersales.web.app import create_web_app

STATIC = Path(__file__).resolve().parent / "static"
REVISIONS = [MODERN, LEGACY]
SHORT_TTL = timedelta(seconds=5)  # the expired case's rounds: long enough to answer, short enough to watch expire
ACTIONS = ("accept", "decline", "cancel")
SHORT_ROUNDS = "/short-rounds/mcp"
# The demo's registry is its own (in its throwaway folder) and holds the demo world and one run's forks, so the
# user's worlds limits (set for their own server or harness) must neither refuse a fork nor let housekeeping drop
# the forks of a run whose form a presenter has left open for a few minutes.
WORLDS_MAX = 8
WORLDS_IDLE_TTL = timedelta(days=1)


def demo_settings(settings: Settings, folder: Path, host: str, port: int) -> Settings:
    """The demo's own settings: the user's policy and limits, but throwaway data, worlds and keys in `folder`."""
    loopback = host in ("127.0.0.1", "localhost", "[::1]")
    return settings.model_copy(
        update={
            "env": "development",
            "data_dir": folder,
            "database_url": f"sqlite:///{folder / 'control.db'}",
            "worlds_dir": folder / "worlds",
            "worlds_max": WORLDS_MAX,
            "worlds_idle_ttl": WORLDS_IDLE_TTL,
            "worlds_admin": False,  # the demo's clients need /mcp only
            "secret_keys": None,
            "state_keys": None,
            "host": "127.0.0.1" if loopback else host,
            "port": port,
            "allowed_hosts": "" if loopback else f"{host}:{port}",
            # The bank-account page's links point here, where the demo serves the page (below).
            "public_url": f"http://{host}:{port}",
        }
    )


def create_demo_app(settings: Settings, folder: Path, host: str, port: int) -> Starlette:
    """The demo's ASGI app; its clients reach the worlds at http://host:port (the address this server binds)."""
    base = demo_settings(settings, folder, host, port)
    # Both Apps read the same control database and the same generated keys in `folder`: one registry of worlds.
    app, short = App(base), App(base.model_copy(update={"state_ttl": SHORT_TTL}))
    webs = {"/mcp": create_web_app(app), SHORT_ROUNDS: create_web_app(short)}
    servers = {"/mcp": app, SHORT_ROUNDS: short}
    worlds = DemoWorlds(app, others=(short,))
    stage = Stage()
    hold = SHORT_TTL.total_seconds() + 1
    targets: list[Target] = []  # another server the presenter pointed the page at; none: the demo's own

    async def play(run: Run) -> None:
        case = BY_KEY[run.case]
        await anyio.to_thread.run_sync(worlds.release)  # the run before has stopped: its forks go
        endpoints: dict[str, Endpoint] = {}
        for revision in run.revisions:
            if targets:
                endpoints[revision] = targets[0].endpoint()
                continue
            path = SHORT_ROUNDS if revision in case.short_rounds else "/mcp"
            url = f"http://{host}:{port}{path}"
            endpoints[revision] = await anyio.to_thread.run_sync(worlds.fresh, url, servers[path])
        async with anyio.create_task_group() as group:
            for revision in run.revisions:
                group.start_soon(Column(run, revision, endpoints[revision], case, hold).play)
        run.emit({"type": "done"})

    async def index(_: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    async def cases(_: Request) -> JSONResponse:
        return JSONResponse(
            {
                "cases": [case.public() for case in CASES],
                "revisions": REVISIONS,
                "state_ttl_seconds": base.state_ttl.total_seconds(),
                "short_ttl_seconds": SHORT_TTL.total_seconds(),
            }
        )

    async def start(request: Request) -> JSONResponse:
        body = await _json(request)
        case, revisions = body.get("case"), body.get("revisions") or REVISIONS
        if case not in BY_KEY or not isinstance(revisions, list) or not set(revisions) <= set(REVISIONS):
            return _problem(f"Unknown case or revisions; cases are {', '.join(BY_KEY)}, revisions {REVISIONS}.")
        if targets and BY_KEY[case].short_rounds:
            return _problem(f"{BY_KEY[case].title} needs the demo's own server (its rounds live 5 s); switch back.")
        run = await stage.start(case, [r for r in REVISIONS if r in revisions], play)
        return JSONResponse({"run": run.id})

    async def events(request: Request) -> JSONResponse:
        try:
            after = int(request.query_params.get("after", "0"))
        except ValueError:
            return _problem("after must be a whole number.")
        run, found = await stage.news(request.query_params.get("run") or None, after)
        if run is None:
            return JSONResponse({"run": None, "events": []})
        over = run.finished.is_set()
        return JSONResponse(
            {"run": run.id, "case": run.case, "revisions": run.revisions, "events": found, "over": over}
        )

    async def answer(request: Request) -> JSONResponse:
        body = await _json(request)
        action, contents, run = body.get("action"), body.get("contents") or {}, stage.run
        if action not in ACTIONS or not isinstance(contents, dict):
            return _problem("action must be accept, decline or cancel; contents an object of answers by question.")
        if run is None or run.id != body.get("run") or not run.answer(str(body.get("ask")), Answer(action, contents)):
            return _problem("That question is not waiting for an answer (answered already, or another run).", 409)
        return JSONResponse({"status": "delivered"})

    async def target(request: Request) -> JSONResponse:
        if request.method == "GET":
            return JSONResponse({"target": targets[0].public() if targets else None})
        await stage.clear()  # the run on the page talked to the other server
        targets.clear()
        if request.method == "DELETE":
            return JSONResponse({"target": None})
        body = await _json(request)
        try:
            found = await connect(body.get("url"), body.get("token"))
        except TargetRefused as refused:
            return _problem(str(refused))
        targets.append(found)
        return JSONResponse({"target": found.public()})

    async def exported(request: Request) -> Response:
        run, kind = stage.run, request.query_params.get("format", "json")
        if kind not in ("json", "md"):
            return _problem("format must be json or md.")
        if run is None or run.id != request.query_params.get("run"):
            return _problem("That run is not on the page any more: only the current run can be exported.", 404)
        where = targets[0].url if targets else None
        name = f"aftersales-demo-{run.case}-{run.id}.{kind}"
        headers = {"Content-Disposition": f'attachment; filename="{name}"'}
        if kind == "md":
            return PlainTextResponse(export.as_markdown(run, where), headers=headers, media_type="text/markdown")
        return JSONResponse(export.as_json(run, where), headers=headers)

    async def reset(_: Request) -> JSONResponse:
        await stage.clear()
        await anyio.to_thread.run_sync(worlds.rebuild)
        return JSONResponse({"status": "reset"})

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        await anyio.to_thread.run_sync(worlds.rebuild)
        async with AsyncExitStack() as stack:
            for server in servers.values():
                stack.callback(server.close)  # last: write the audits, close the databases
            for web in webs.values():
                await stack.enter_async_context(web.router.lifespan_context(web))
            await stack.enter_async_context(stage.running())
            yield

    demo = Starlette(
        routes=[
            Route("/", index, methods=["GET"]),
            Route("/api/cases", cases, methods=["GET"]),
            Route("/api/runs", start, methods=["POST"]),
            Route("/api/events", events, methods=["GET"]),
            Route("/api/answers", answer, methods=["POST"]),
            Route("/api/reset", reset, methods=["POST"]),
            Route("/api/target", target, methods=["GET", "POST", "DELETE"]),
            Route("/api/export", exported, methods=["GET"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
            *(Route(path, _AtMcp(web)) for path, web in webs.items()),
            # The bank-account page (URL-mode elicitation) is the server's own route; forks are its worlds.
            Route("/payout/{rest:path}", _Framed(webs["/mcp"]), methods=["GET", "POST"]),
        ],
        lifespan=lifespan,
    )

    def close_streams() -> None:
        for web in webs.values():
            web.state.close_streams()
        stage.close()

    demo.state.close_streams = close_streams
    demo.state.stage, demo.state.worlds = stage, worlds
    return demo


async def _json(request: Request) -> dict[str, Any]:
    """The request's JSON object, or an empty one."""
    try:
        body = await request.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _problem(text: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": text}, status_code=status)


class _Framed:
    """The server's pages, which may be framed by the demo page beside the question (the server never lets another
    site frame them: `frame-ancestors 'none'`; the demo page and the page it frames are one origin)."""

    def __init__(self, web: ASGIApp) -> None:
        self.web = web

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def framed(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (name, value.replace(b"frame-ancestors 'none'", b"frame-ancestors 'self'"))
                    if name.lower() == b"content-security-policy"
                    else (name, value)
                    for name, value in message.get("headers", [])
                    if name.lower() != b"x-frame-options"
                ]
                message = {**message, "headers": headers}
            await send(message)

        await self.web(scope, receive, framed)


class _AtMcp:
    """A server's web app, handed each request as a request for its /mcp (where its auth and MCP route are)."""

    def __init__(self, web: ASGIApp) -> None:
        self.web = web

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.web(dict(scope, path="/mcp", raw_path=b"/mcp", root_path=""), receive, send)

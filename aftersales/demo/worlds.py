"""The demo's data: one world per column, made fresh from the baseline for every case run.

Phase 1 (before worlds exist) a world is a SQLite file in the demo's throwaway folder, with its own App and
MCP endpoint (`/worlds/NAME/mcp`), refilled from a template with SQLite's backup API. Everything above this module
asks only for `fresh(name)` (an endpoint on just-reset data) and `rebuild()`; when worlds land, this module
forks a world per run instead and hands out a token bound to it.

Phase 2 (after worlds and after_sales_cancel_ticket are merged): `fresh()` forks the demo world (one fork per
column and run) and returns the server's own /mcp with a token bound to the fork; `rebuild()` recreates the demo
world; the short-TTL variant stays a second App (requestState's TTL is the SDK's wall clock, not a world clock);
/worlds/ and `asgi()` go. A "cancel a ticket" case joins cases.py (destructive confirmation on both revisions).
"""

import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.types import Receive, Scope, Send

from aftersales.app import App
from aftersales.bootstrap import prepare
from aftersales.clock import now
from aftersales.domain.callers import ALL_SCOPES
from aftersales.security import tokens
from aftersales.settings import Settings
from aftersales.storage.database import make_engine
from aftersales.web.app import create_web_app

CALLER = "demo-agent"  # the caller id the demo's clients act as (owner of quotes, scope of idempotency keys)
PREFIX = "/worlds/"


@dataclass(frozen=True)
class Endpoint:
    """Where one column's client connects, and what the demo may know about the state it is sealed with."""

    url: str
    token: str
    caller: str
    state_keys: list[str]
    state_ttl: timedelta


@dataclass
class World:
    """One named copy of the demo data, served by its own App."""

    name: str
    app: App
    web: Starlette
    path: Path


class DemoWorlds:
    """The worlds the cases run in; `asgi` serves their MCP endpoints under /worlds/NAME/mcp."""

    def __init__(self, settings: Settings, folder: Path, variants: dict[str, dict[str, Any]]) -> None:
        self.folder, self.base_url = folder, ""
        self.template = folder / "template.db"
        self.worlds: dict[str, World] = {}
        for name, changes in variants.items():
            path = folder / f"{name}.db"
            app = App(settings.model_copy(update={"database_url": f"sqlite:///{path}", **changes}))
            self.worlds[name] = World(name, app, create_web_app(app), path)

    def rebuild(self) -> None:
        """Build the template from the baseline again (dates shifted to today) and refill every world from it."""
        self.template.unlink(missing_ok=True)
        engine = make_engine(f"sqlite:///{self.template}")
        try:
            prepare(engine, next(iter(self.worlds.values())).app.settings.seed_dir)
        finally:
            engine.dispose()
        for name in self.worlds:
            self._refill(name)

    def fresh(self, name: str) -> Endpoint:
        """An endpoint on world `name`, its data just reset to the template (so every run starts the same)."""
        self._refill(name)
        app = self.worlds[name].app
        token = tokens.issue(app.caller_keys, CALLER, list(ALL_SCOPES), timedelta(hours=12), now())
        return Endpoint(f"{self.base_url}{PREFIX}{name}/mcp", token, CALLER, app.state_keys, app.settings.state_ttl)

    def _refill(self, name: str) -> None:
        """Copy the template into the world's file, page by page, with no connection of the App left open."""
        world = self.worlds[name]
        world.app.engine.dispose()
        source, target = sqlite3.connect(self.template), sqlite3.connect(world.path, timeout=30)
        try:
            source.backup(target)
        finally:
            source.close()
            target.close()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run every world's web app (its session manager); write their audits and close them afterwards."""
        async with AsyncExitStack() as stack:
            for world in self.worlds.values():
                stack.callback(world.app.close)
                await stack.enter_async_context(world.web.router.lifespan_context(world.web))
            yield

    def close_streams(self) -> None:
        """End the worlds' open 2025-11-25 streams (shutdown has started)."""
        for world in self.worlds.values():
            world.web.state.close_streams()

    def asgi(self) -> Callable[[Scope, Receive, Send], Any]:
        """An ASGI app routing /worlds/NAME/mcp to that world's web app as /mcp (auth and all)."""

        async def route(scope: Scope, receive: Receive, send: Send) -> None:
            name, _, rest = scope["path"].removeprefix(PREFIX).partition("/")
            world = self.worlds.get(name)
            if world is None or rest != "mcp":
                await PlainTextResponse("No such demo world.", status_code=404)(scope, receive, send)
                return
            inner = dict(scope, path="/mcp", raw_path=b"/mcp", root_path="")
            await world.web(inner, receive, send)

        return route

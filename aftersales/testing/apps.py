"""The harness's server: one App per distinct set of settings, whose requests run in the trial world they address.

A request to /worlds/<id>/mcp runs in that trial's world: its units of work open the world's database, `clock.now()`
reads the world's clock, ids come from its sequence, and forms go to the task's customer when the world answers
them. The world is chosen by the URL here; worlds phase 2 (issue #13) routes by a world-bound token instead, after
which this module shrinks to choosing settings.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from aftersales.app import App
from aftersales.mcp.forms import answered_by
from aftersales.mcp.server import build_server
from aftersales.settings import Settings
from aftersales.storage.unit_of_work import UnitOfWork
from aftersales.testing.recorder import Trial, TrialRecorder, current_trial
from aftersales.web.app import create_web_app
from aftersales.worlds import context
from aftersales.worlds.service import Worlds

PREFIX = "/worlds/"
TRIAL = "aftersales.trial"  # the ASGI scope key the router hands the trial to the inner middleware under


@dataclass
class WorldsApp(App):
    """An App whose units of work open the database of the world the request is in (the default one otherwise)."""

    worlds: Worlds | None = None

    def uow(self, write: bool = False) -> UnitOfWork:
        """A unit of work on the current world's database."""
        world = context.current()
        if world is None or self.worlds is None:
            return super().uow(write)
        return UnitOfWork(self.worlds.engines.sessions(world.location), write=write)


@dataclass
class Served:
    """One App and its web app, built for one set of settings."""

    app: WorldsApp
    web: Starlette


@dataclass
class Router:
    """ASGI: /worlds/<id>/mcp to the trial's web app as /mcp (bearer auth and all); anything else is 404."""

    trials: dict[str, Trial] = field(default_factory=dict)
    served_for: Callable[[Trial], Served] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Route one request."""
        if scope["type"] != "http":
            return
        name, _, rest = scope["path"].removeprefix(PREFIX).partition("/")
        trial = self.trials.get(name) if scope["path"].startswith(PREFIX) else None
        if trial is None or rest != "mcp" or self.served_for is None:
            body = {"error": "unknown_world", "error_description": f"No trial world at {scope['path']}."}
            await JSONResponse(body, status_code=404)(scope, receive, send)
            return
        inner = dict(scope, path="/mcp", raw_path=b"/mcp", root_path="")
        inner[TRIAL] = trial
        await self.served_for(trial).web(inner, receive, send)


class EnterTrial:
    """Innermost ASGI middleware (after bearer auth, which keeps the wall clock): run the request in its trial."""

    def __init__(self, app: ASGIApp, worlds: Worlds) -> None:
        self.app, self.worlds = app, worlds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        trial: Trial | None = scope.get(TRIAL)
        if trial is None:
            await self.app(scope, receive, send)
            return
        token = current_trial.set(trial)
        try:
            with context.entered(trial.world, self.worlds.registry.next_counter), answered_by(trial.answerer):
                await self.app(scope, receive, send)
        finally:
            current_trial.reset(token)


def serve_settings(settings: Settings, worlds: Worlds) -> Served:
    """An App and web app for `settings`, with the trial recorder outermost and the trial entered after auth."""
    app = WorldsApp(settings=settings, worlds=worlds)
    server = build_server(app)
    server.middleware.insert(0, TrialRecorder())
    web = create_web_app(app, server)
    # Starlette builds its middleware stack on the first request; the last entry wraps the routes most closely.
    web.user_middleware.append(Middleware(EnterTrial, worlds=worlds))
    return Served(app, web)


def with_overrides(settings: Settings, overrides: dict[str, Any]) -> Settings:
    """`settings` with a task's overrides, validated as the environment's values would be."""
    if not overrides:
        return settings
    return Settings(**(settings.model_dump() | overrides))

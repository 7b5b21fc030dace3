"""The harness's server: one App per distinct set of settings (a task may override some), behind one port.

Requests carry a token bound to their trial's world, and worlds phase 2 runs each in that world (its data, clock,
ids, trace). The URL /worlds/<id>/mcp only picks the App built with the trial's settings; it forwards as /mcp.
/worlds/<id>/customer is the customer channel of a conversation trial (conversation/endpoint.py).
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from aftersales.app import App
from aftersales.mcp.server import build_server
from aftersales.mcp.tracing import CallTracer
from aftersales.settings import Settings
from aftersales.testing.conversation.endpoint import Channel, serve_customer
from aftersales.testing.events import TaskEvents, Trials
from aftersales.web.app import create_web_app
from aftersales.worlds.trace import FormAnswerer

PREFIX = "/worlds/"


@dataclass
class Served:
    """One App and its web app, built for one set of settings."""

    app: App
    web: Starlette


@dataclass
class Router:
    """ASGI: /worlds/<id>/mcp to the web app of that world's settings, as /mcp; /worlds/<id>/customer to its channel."""

    served_for: Callable[[str], Served | None]
    channel_for: Callable[[str], Channel | None] = lambda world_id: None
    keys: list[str] = field(default_factory=list)  # the caller-token keys, to verify a channel request's token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Route one request."""
        if scope["type"] != "http":
            return
        name, _, rest = scope["path"].removeprefix(PREFIX).partition("/")
        if scope["path"].startswith(PREFIX) and rest == "customer":
            await serve_customer(name, self.channel_for, self.keys, scope, receive, send)
            return
        served = self.served_for(name) if scope["path"].startswith(PREFIX) and rest == "mcp" else None
        if served is None:
            body = {"error": "unknown_world", "error_description": f"No trial world at {scope['path']}."}
            await JSONResponse(body, status_code=404)(scope, receive, send)
            return
        await served.web(dict(scope, path="/mcp", raw_path=b"/mcp", root_path=""), receive, send)


def serve_settings(settings: Settings, answerer: FormAnswerer, trials: Trials) -> Served:
    """An App and web app for `settings`: forms answered by `answerer`, the trials' events played after calls."""
    app = App(settings=settings, form_answerer=answerer)
    server = build_server(app)
    # Inside the tracer, so a response the task loses is traced as the error the agent received.
    tracer = next(index for index, middleware in enumerate(server.middleware) if isinstance(middleware, CallTracer))
    server.middleware.insert(tracer + 1, TaskEvents(trials))
    return Served(app, create_web_app(app, server))


def with_overrides(settings: Settings, overrides: dict[str, Any]) -> Settings:
    """`settings` with a task's overrides, validated as the environment's values would be."""
    if not overrides:
        return settings
    return Settings(**(settings.model_dump() | overrides))

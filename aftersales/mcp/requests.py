"""What the server middlewares read from the request in hand: its parameters, and whether it calls a tool or reads a
resource."""

from collections.abc import Mapping
from typing import Any

from mcp.server.context import ServerRequestContext


def params_of(ctx: ServerRequestContext[Any, Any]) -> Mapping[str, Any]:
    """The request's parameters, or none when it sent something other than an object."""
    return ctx.params if isinstance(ctx.params, Mapping) else {}


def tool_call(ctx: ServerRequestContext[Any, Any]) -> Mapping[str, Any] | None:
    """The parameters of a tools/call request; None for any other request (which a tool middleware passes on)."""
    if ctx.method != "tools/call" or not isinstance(ctx.params, Mapping):
        return None
    return ctx.params


def resource_read(ctx: ServerRequestContext[Any, Any]) -> str | None:
    """The URI a resources/read request names; None for any other request, or one without a URI in text."""
    if ctx.method != "resources/read":
        return None
    uri = params_of(ctx).get("uri")
    return uri if isinstance(uri, str) else None

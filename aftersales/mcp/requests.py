"""What the server middlewares read from the request in hand: its parameters, and whether it calls a tool."""

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

"""How a read tool is registered: read-only and idempotent, its caller authorized, its domain errors tool errors."""

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult

from aftersales.domain.callers import READ
from aftersales.mcp.caller import authorize
from aftersales.mcp.error_mapping import tool_errors
from aftersales.mcp.tools.hints import hints

P = ParamSpec("P")
R = TypeVar("R")


def read_tool(
    server: MCPServer, name: str, title: str, description: str
) -> Callable[[Callable[P, R]], Callable[P, R | CallToolResult]]:
    """Register the decorated function as the read tool `name`; it holds only the call of its service.

    Its parameters are the input schema and its return type the output schema. It stays a plain function, so the SDK
    runs it on a worker thread, off the event loop, as the database read it makes needs.
    """

    def register(fn: Callable[P, R]) -> Callable[P, R | CallToolResult]:
        @functools.wraps(fn)
        def authorized(*args: P.args, **kwargs: P.kwargs) -> R:
            authorize(READ, name)
            return fn(*args, **kwargs)

        tool = tool_errors(authorized)
        annotations = hints(title, read_only=True, idempotent=True)
        server.tool(name=name, title=title, description=description, annotations=annotations)(tool)
        return tool

    return register

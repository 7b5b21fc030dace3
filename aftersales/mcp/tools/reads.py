"""How a read tool is registered: read-only and idempotent, its caller authorized, its domain errors tool errors."""

import functools
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult

from aftersales.domain.callers import READ
from aftersales.mcp.caller import authorize
from aftersales.mcp.error_mapping import tool_errors
from aftersales.mcp.on_database import on_database
from aftersales.mcp.tools.hints import hints
from aftersales.storage.runner import DatabaseRunner

P = ParamSpec("P")
R = TypeVar("R")


def read_tool(
    server: MCPServer, database: DatabaseRunner, name: str, title: str, description: str
) -> Callable[[Callable[P, R]], Callable[P, Awaitable[R | CallToolResult]]]:
    """Register the decorated function as the read tool `name`; it holds only the call of its service.

    Its parameters are the input schema and its return type the output schema. It is a plain function, run as a
    read through `database` (on the event loop on PostgreSQL, on a worker thread on SQLite: never blocking the loop).
    """

    def register(fn: Callable[P, R]) -> Callable[P, Awaitable[R | CallToolResult]]:
        @functools.wraps(fn)
        def authorized(*args: P.args, **kwargs: P.kwargs) -> R:
            authorize(READ, name)
            return fn(*args, **kwargs)

        tool = on_database(database)(tool_errors(authorized))
        annotations = hints(title, read_only=True, idempotent=True)
        server.tool(name=name, title=title, description=description, annotations=annotations)(tool)
        return tool

    return register

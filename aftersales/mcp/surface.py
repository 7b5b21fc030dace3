"""What the server advertises, and how it answers for a prompt or resource it does not have.

The SDK registers prompt and resource handlers on every MCPServer, so it advertises both capabilities even when
nothing is registered. This middleware advertises a capability only while the server has something to serve under
it (checked on every handshake, so prompts or resources registered later are advertised), and answers a prompt or
resource name it does not know with JSON-RPC -32602 on both protocol revisions.
"""

from collections.abc import Mapping
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from aftersales.mcp.requests import params_of

HANDSHAKES = ("initialize", "server/discover")


class ServedSurface:
    """Server middleware: advertise only served capabilities; unknown prompt or resource names are -32602."""

    def __init__(self, server: MCPServer) -> None:
        self._server = server

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Trim handshake capabilities; refuse unknown names before the SDK turns them into internal errors."""
        if ctx.method == "prompts/get":
            await self._check_prompt(params_of(ctx).get("name"))
        result = await call_next(ctx)
        if ctx.method in HANDSHAKES and isinstance(result, Mapping):
            return await self._trim(dict(result))
        return result

    async def _check_prompt(self, name: Any) -> None:
        names = [prompt.name for prompt in await self._server.list_prompts()]
        if name not in names:
            raise unknown("prompt", name, names)

    async def _trim(self, result: dict[str, Any]) -> dict[str, Any]:
        """The handshake result without the capabilities of empty catalogues."""
        capabilities = dict(result.get("capabilities") or {})
        if not await self._server.list_prompts():
            capabilities.pop("prompts", None)
        if not await self._server.list_resources() and not await self._server.list_resource_templates():
            capabilities.pop("resources", None)
        return {**result, "capabilities": capabilities}


def unknown(kind: str, name: Any, known: list[str]) -> MCPError:
    """JSON-RPC -32602 for a name the server does not have, saying what it does have."""
    offer = f"The {kind}s of this server are: {', '.join(sorted(known))}." if known else f"This server has no {kind}s."
    return MCPError(INVALID_PARAMS, f"Unknown {kind}: {name!r}. {offer}", data={"name": name})

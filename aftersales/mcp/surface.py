"""What the server advertises, and how it answers for a prompt or resource it does not have.

The SDK registers prompt and resource handlers on every MCPServer, so it advertises both capabilities even when
nothing is registered. This middleware advertises a capability only while the server has something to serve under
it (checked on every handshake, so prompts or resources registered later are advertised), and answers a prompt or
resource name it does not know with JSON-RPC -32602 on both protocol revisions. So are prompt arguments the prompt
does not take, or a required one left out: the SDK would answer those with an internal error.

On 2026-07-28 the SDK also advertises `resources.subscribe` and `listChanged` for tools, prompts and resources because
it serves `subscriptions/listen`. Nothing here ever changes those lists (every tool, prompt and resource is registered
when the server is built) and no resource ever sends an update (the policy is fixed for the life of the process, and
tickets and orders change in the shared database, on any replica, without an event this process could see), so both
revisions say `listChanged: false` and `subscribe: false`, as 2025-11-25 already did.
"""

from collections.abc import Mapping
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from aftersales.mcp.requests import params_of

HANDSHAKES = ("initialize", "server/discover")
LISTS = ("tools", "prompts", "resources")


class ServedSurface:
    """Server middleware: advertise only served capabilities; unknown prompt or resource names are -32602."""

    def __init__(self, server: MCPServer) -> None:
        self._server = server

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Trim handshake capabilities; refuse unknown names before the SDK turns them into internal errors."""
        if ctx.method == "prompts/get":
            params = params_of(ctx)
            await self._check_prompt(params.get("name"), params.get("arguments") or {})
        result = await call_next(ctx)
        if ctx.method in HANDSHAKES and isinstance(result, Mapping):
            return await self._trim(dict(result))
        return result

    async def _check_prompt(self, name: Any, arguments: Any) -> None:
        prompts = {prompt.name: prompt for prompt in await self._server.list_prompts()}
        prompt = prompts.get(name) if isinstance(name, str) else None
        if prompt is None:
            raise unknown("prompt", name, list(prompts))
        taken = {argument.name: argument.required for argument in prompt.arguments or []}
        given = set(arguments) if isinstance(arguments, Mapping) else set()
        extra, missing = (
            sorted(given - set(taken)),
            sorted(n for n, required in taken.items() if required and n not in given),
        )
        if extra or missing:
            raise wrong_arguments(name, extra, missing, sorted(taken))

    async def _trim(self, result: dict[str, Any]) -> dict[str, Any]:
        """The handshake result without the capabilities of empty catalogues, and with lists that never change."""
        capabilities = dict(result.get("capabilities") or {})
        if not await self._server.list_prompts():
            capabilities.pop("prompts", None)
        if not await self._server.list_resources() and not await self._server.list_resource_templates():
            capabilities.pop("resources", None)
        elif isinstance(capabilities.get("resources"), Mapping):
            capabilities["resources"] = {**capabilities["resources"], "subscribe": False}
        for name in LISTS:
            if isinstance(capabilities.get(name), Mapping):
                capabilities[name] = {**capabilities[name], "listChanged": False}
        return {**result, "capabilities": capabilities}


def unknown(kind: str, name: Any, known: list[str]) -> MCPError:
    """JSON-RPC -32602 for a name the server does not have, saying what it does have."""
    offer = f"The {kind}s of this server are: {', '.join(sorted(known))}." if known else f"This server has no {kind}s."
    return MCPError(INVALID_PARAMS, f"Unknown {kind}: {name!r}. {offer}", data={"name": name})


def wrong_arguments(prompt: str, extra: list[str], missing: list[str], taken: list[str]) -> MCPError:
    """JSON-RPC -32602 for prompt arguments the prompt does not take, or required ones left out."""
    problems = [f"it takes no argument {name!r}" for name in extra] + [f"{name!r} is required" for name in missing]
    offer = f"It takes: {', '.join(taken)}." if taken else "It takes no arguments."
    return MCPError(
        INVALID_PARAMS,
        f"Prompt {prompt!r} cannot be got with these arguments: {'; '.join(problems)}. {offer}",
        data={"name": prompt, "unknown": extra, "missing": missing},
    )

"""Which tool texts a tools/list answers with: the world's description set, else the server's, else today's."""

import concurrent.futures
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import anyio
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer

from aftersales.app import App
from aftersales.mcp import tools
from aftersales.mcp.arguments import closed_schemas
from aftersales.mcp.descriptions import (
    FORMAT,
    DescriptionSet,
    DescriptionSetError,
    Tools,
    from_canonical,
    load,
    parse,
    served,
)
from aftersales.settings import Settings
from aftersales.worlds import context
from aftersales.worlds.model import World
from aftersales.worlds.world_errors import WorldRequestError


class DescribedTools:
    """Server middleware: tools/list carries the texts of the set in force; nothing else is touched."""

    def __init__(self, server_set: DescriptionSet | None) -> None:
        self._server_set = server_set

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Replace the texts of a tools/list result when a set is in force."""
        result = await call_next(ctx)
        if ctx.method != "tools/list" or not isinstance(result, Mapping) or not isinstance(result.get("tools"), list):
            return result
        chosen = world_set(context.current()) or self._server_set
        return result if chosen is None else {**result, "tools": served(result["tools"], chosen)}


def world_set(world: World | None) -> DescriptionSet | None:
    """The set a world was made with, or None."""
    return None if world is None or world.tool_descriptions is None else _parsed(world.tool_descriptions)


@lru_cache(maxsize=64)
def _parsed(canonical: str) -> DescriptionSet:
    # Every request of a world reads the same stored text: parse it once.
    return from_canonical(canonical)


def wire_tools(server: MCPServer) -> list[dict[str, Any]]:
    """The server's own tools/list entries in wire form, before any set (callable with or without an event loop)."""

    async def listed() -> list[dict[str, Any]]:
        return [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in await server.list_tools()]

    # A thread of its own, so this works inside a running loop too (build_server is called from both).
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, listed).result()


def definitions(settings: Settings, chosen: DescriptionSet | None = None) -> list[dict[str, Any]]:
    """The tools/list entries a server (or world) under `settings` serves with the set `chosen` (None: today's).

    Built without a database, a port or keys: what an agent under test is shown, for tests that compare two sets.
    """
    bare = MCPServer("aftersales")
    tools.register(bare, App(settings))
    listed = closed_schemas({"tools": wire_tools(bare)})
    assert isinstance(listed, dict)
    return served(listed["tools"], chosen)


def world_texts(value: object, catalogue: Tools, datasets: Path) -> str:
    """The stored text of the set a world is asked to serve over the admin API: sent whole, or a file's name.

    A file is read only from the datasets folder (AFTERSALES_WORLDS_DATASETS_DIR), resolved with its symbolic links
    before anything about it is read, as dataset files are: the API never reads other files of the server.
    """
    name = '"tool_descriptions"'
    try:
        if isinstance(value, str):
            folder = datasets.resolve()
            path = (folder / value).resolve()
            if not path.is_relative_to(folder):
                raise WorldRequestError(
                    f"{name} {value!r} is not in {folder}.",
                    "Over the admin API a description set is sent in the body or named as a file in the datasets "
                    "folder (AFTERSALES_WORLDS_DATASETS_DIR); the server reads no other file.",
                    f"Send the set itself as {name}, or put the file in that folder and send its name.",
                )
            chosen = load(path, catalogue)
        else:
            chosen = parse(value, name, catalogue)
    except DescriptionSetError as error:
        raise WorldRequestError(
            f"{name} cannot be served: {'; '.join(error.problems)}",
            f"A set ({FORMAT}) changes only the titles and descriptions of the tools this server has.",
            "Correct those entries, or start again from `aftersales tools descriptions --export`.",
        ) from None
    return chosen.completed(catalogue).canonical()


def world_texts_of(server: MCPServer, settings: Settings) -> Callable[[object], str]:
    """`world_texts` against `server`'s own tools (listed on first use) and the configured datasets folder."""
    catalogue: list[dict[str, Any]] = []

    def texts(value: object) -> str:
        if not catalogue:
            catalogue.extend(wire_tools(server))
        return world_texts(value, catalogue, settings.worlds_datasets)

    return texts


def server_set(server: MCPServer, settings: Settings) -> DescriptionSet | None:
    """The set AFTERSALES_TOOL_DESCRIPTIONS names, checked against `server`'s tools (DescriptionSetError if not)."""
    path = settings.tool_descriptions
    return None if path is None else load(path, wire_tools(server), f"AFTERSALES_TOOL_DESCRIPTIONS={path}")

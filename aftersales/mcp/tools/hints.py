"""Tool annotations, stated the same way for every tool."""

from mcp_types import ToolAnnotations


def hints(title: str, *, read_only: bool, idempotent: bool, destructive: bool = False) -> ToolAnnotations:
    """A tool's annotations; no tool here reaches outside the shop's own data, so none is open-world."""
    return ToolAnnotations(
        title=title,
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )

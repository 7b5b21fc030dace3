"""Tool description sets for tests: an alternative set file, and the wire-level listing of a client's tools."""

import json
from pathlib import Path
from typing import Any

import yaml

from aftersales.mcp.descriptions import FORMAT
from tests.support import ROOT

QUERY = "after_sales_query_ticket"
CREATE = "after_sales_create_ticket"
ALTERNATIVE = {
    "format": FORMAT,
    "name": "terse-v2",
    "tools": {
        QUERY: {"title": "Ticket status", "description": "Where a ticket stands, by its number. Read-only."},
        CREATE: {"fields": {"idempotency_key": "One key per intended ticket; the same on every retry."}},
    },
}


def write_set(folder: Path, data: dict[str, Any] = ALTERNATIVE, name: str = "terse-v2.yaml") -> Path:
    """The set written as YAML into `folder`."""
    path = folder / name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def texts_removed(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """tools/list entries without the texts a set may change: what must be equal under every set."""
    bare = []
    for tool in tools:
        rest = {key: value for key, value in tool.items() if key not in ("title", "description")}
        rest["annotations"] = {key: value for key, value in tool["annotations"].items() if key != "title"}
        schema = tool["inputSchema"]
        properties = {
            name: {key: value for key, value in prop.items() if key != "description"}
            for name, prop in schema["properties"].items()
        }
        rest["inputSchema"] = {**schema, "properties": properties}
        bare.append(rest)
    return bare


def listed(tools: Any) -> list[dict[str, Any]]:
    """A client's tools/list answer in wire form."""
    return [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in tools]


def todays() -> list[dict[str, Any]]:
    """Today's tools/list in wire form, as the snapshot test pins it."""
    return list(json.loads((ROOT / "tests" / "snapshots" / "tools_list.json").read_text(encoding="utf-8")))

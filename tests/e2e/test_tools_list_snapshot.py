"""The whole tools/list result is a snapshot: any change to what the model sees must be deliberate.

Regenerate after an intended change with:
    AFTERSALES_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/e2e/test_tools_list_snapshot.py
"""

import json
import os
from pathlib import Path

import pytest

from tests.support.clients import connect

pytestmark = pytest.mark.anyio
SNAPSHOT = Path(__file__).parent.parent / "snapshots" / "tools_list.json"
ORDER = [
    "after_sales_query_ticket",
    "after_sales_estimate_refund",
    "after_sales_create_ticket",
    "after_sales_find_orders",
    "after_sales_get_order",
    "after_sales_list_tickets",
    "after_sales_cancel_ticket",
]


async def listed(server, mode: str) -> list[dict]:
    async with connect(server, mode) as client:
        tools = (await client.list_tools()).tools
    return [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in tools]


async def test_tools_list_matches_the_snapshot_in_a_stable_order(server, mode):
    current = await listed(server, mode)
    assert [tool["name"] for tool in current] == ORDER
    if os.environ.get("AFTERSALES_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.write_text(json.dumps(current, indent=2, ensure_ascii=False) + "\n")
    assert current == json.loads(SNAPSHOT.read_text())


async def test_every_tool_reads_as_the_review_checklist_asks(server):
    for tool in await listed(server, "auto"):
        description = tool["description"].lower()
        assert "use it" in description and "do not use" in description, tool["name"]
        assert "usual sequence" in description, tool["name"]
        assert "held" in description or "creates no state" in description or "kept" in description, tool["name"]
        assert tool["title"] and tool["annotations"]["openWorldHint"] is False
        assert tool["outputSchema"]["type"] == "object"
        for name, field in tool["inputSchema"]["properties"].items():
            assert field.get("description") and field.get("examples"), (tool["name"], name)

"""tools/list serves a description set's texts, through the real MCP client on both revisions: a server's, a world's."""

from pathlib import Path

import pytest

from aftersales.mcp.server import build_server
from tests.support.apps import app_without_database
from tests.support.clients import connect, connect_http
from tests.support.descriptions import ALTERNATIVE, QUERY, listed, texts_removed, todays, write_set
from tests.support.worlds import PINNED

pytestmark = pytest.mark.anyio
SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # the MCP layer's texts, not storage's


async def test_a_server_given_a_set_lists_its_texts_and_nothing_else_changes(tmp_path: Path, mode):
    app = app_without_database(tmp_path, tool_descriptions=write_set(tmp_path))
    async with connect(build_server(app), mode) as client:
        tools = listed((await client.list_tools()).tools)
    app.close()
    query = next(tool for tool in tools if tool["name"] == QUERY)
    assert (query["title"], query["description"]) == ("Ticket status", ALTERNATIVE["tools"][QUERY]["description"])
    assert tools != todays() and texts_removed(tools) == texts_removed(todays())


@SQLITE_ONLY
@pytest.mark.http
async def test_a_world_made_with_a_set_lists_its_texts_its_forks_too_and_other_worlds_keep_todays(served_worlds, mode):
    admin = served_worlds.admin
    described = admin.create(at=PINNED, tool_descriptions=ALTERNATIVE)
    plain, fork = admin.create(at=PINNED), described.fork()
    assert described.info["tool_descriptions"]["name"] == "terse-v2"
    seen = {}
    for world in (described, plain, fork):
        async with connect_http(world.url.removesuffix("/mcp"), world.token, mode) as client:
            seen[world.id] = listed((await client.list_tools()).tools)
    assert seen[plain.id] == todays()
    assert seen[described.id] == seen[fork.id] != todays()
    assert next(tool for tool in seen[described.id] if tool["name"] == QUERY)["title"] == "Ticket status"
    assert texts_removed(seen[described.id]) == texts_removed(todays())

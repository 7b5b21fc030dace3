"""What the server advertises, and unknown prompt and resource names, through the real client on both revisions."""

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from aftersales.app import App
from aftersales.domain.callers import READ
from aftersales.mcp.server import build_server
from aftersales.web.app import create_web_app
from tests.support.clients import bearer_token, connect, connect_http
from tests.support.web import serving

pytestmark = pytest.mark.anyio
Connector = Callable[[MCPServer, str], AbstractAsyncContextManager[Client]]


@pytest.fixture(params=["memory", "http"])
def connector(request: pytest.FixtureRequest, bare_app: App) -> Connector:
    """The real client, in memory or over Streamable HTTP with a bearer token."""
    if request.param == "memory":
        return lambda server, mode: connect(server, mode)

    @asynccontextmanager
    async def over_http(server: MCPServer, mode: str) -> AsyncIterator[Client]:
        token = bearer_token(bare_app.caller_keys, "reader", [READ])
        with serving(create_web_app(bare_app, server)) as url:
            async with connect_http(url, token, mode) as client:
                yield client

    return over_http


async def refusal(call) -> MCPError:
    with pytest.raises(MCPError) as refused:
        await call
    return refused.value


async def test_an_unknown_prompt_or_resource_is_invalid_params_on_both_revisions(bare_app, connector, mode):
    async with connector(build_server(bare_app), mode) as client:
        prompt = await refusal(client.get_prompt("after_sales_policy"))
        resource = await refusal(client.read_resource("aftersales://policy"))
    assert (prompt.error.code, resource.error.code) == (INVALID_PARAMS, INVALID_PARAMS)
    assert prompt.error.message == "Unknown prompt: 'after_sales_policy'. This server has no prompts."
    assert "aftersales://policy" in resource.error.message


async def test_the_server_advertises_tools_but_no_prompts_or_resources_while_it_has_none(bare_app, connector, mode):
    async with connector(build_server(bare_app), mode) as client:
        capabilities = client.server_capabilities
        assert (await client.list_tools()).tools
    assert capabilities.tools is not None
    assert (capabilities.prompts, capabilities.resources) == (None, None)


async def test_registered_prompts_and_resources_are_advertised_and_unknown_names_stay_invalid_params(
    bare_app, connector, mode
):
    server = build_server(bare_app)

    @server.prompt(name="refund_policy")
    def refund_policy() -> str:
        return "Returns are accepted within the window of the item's category."

    @server.resource("aftersales://policy/returns")
    def returns_policy() -> str:
        return "Return windows run from 7 to 30 days."

    async with connector(server, mode) as client:
        capabilities = client.server_capabilities
        served = await client.get_prompt("refund_policy")
        read = await client.read_resource("aftersales://policy/returns")
        prompt = await refusal(client.get_prompt("refund_polcy"))
        resource = await refusal(client.read_resource("aftersales://policy/refunds"))
    assert capabilities.prompts is not None and capabilities.resources is not None
    assert "within the window" in served.messages[0].content.text and "7 to 30 days" in read.contents[0].text
    assert (prompt.error.code, resource.error.code) == (INVALID_PARAMS, INVALID_PARAMS)
    assert prompt.error.message == "Unknown prompt: 'refund_polcy'. The prompts of this server are: refund_policy."

"""What the server advertises, and unknown prompt and resource names, through the real client on both revisions."""

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, METHOD_NOT_FOUND, EmptyResult, Request

from aftersales.app import App
from aftersales.domain.callers import READ
from aftersales.mcp.resources import ORDER_URI, TICKET_URI
from aftersales.mcp.server import build_server
from aftersales.mcp.surface import ServedSurface
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


def tools_only() -> MCPServer:
    """A tiny server with one tool and the ServedSurface middleware: no prompts, no resources."""
    server = MCPServer("tools-only")

    @server.tool()
    def ping() -> str:
        """Answer pong."""
        return "pong"

    server.middleware.append(ServedSurface(server))
    return server


async def test_unknown_prompt_or_resource_names_are_invalid_params_naming_what_is_served(bare_app, connector, mode):
    async with connector(build_server(bare_app), mode) as client:
        prompt = await refusal(client.get_prompt("after_sales_policy"))
        resource = await refusal(client.read_resource("aftersales://policies"))
        template = await refusal(client.read_resource("aftersales://tickets/T-2026-0042/timeline"))
        order = await refusal(client.read_resource("aftersales://orders/O-2026-001423/lines/1"))
    assert (prompt.error.code, resource.error.code, template.error.code, order.error.code) == (INVALID_PARAMS,) * 4
    assert (
        prompt.error.message
        == "Unknown prompt: 'after_sales_policy'. The prompts of this server are: after_sales_agent."
    )
    assert "aftersales://policies" in resource.error.message


async def test_prompt_arguments_it_does_not_take_are_invalid_params_not_a_fault(bare_app, connector, mode):
    async with connector(build_server(bare_app), mode) as client:
        extra = await refusal(client.get_prompt("after_sales_agent", {"customer": "C-00042"}))
    assert extra.error.code == INVALID_PARAMS
    assert extra.error.message == (
        "Prompt 'after_sales_agent' cannot be got with these arguments: it takes no argument 'customer'. "
        "It takes: customer_id, language."
    )


async def test_a_prompt_argument_left_out_that_is_required_is_invalid_params(bare_app, connector, mode):
    server = tools_only()

    @server.prompt(name="greet")
    def greet(name: str) -> str:
        return f"Hello {name}"

    async with connector(server, mode) as client:
        missing = await refusal(client.get_prompt("greet", {}))
    assert missing.error.code == INVALID_PARAMS and "'name' is required" in missing.error.message


async def test_the_server_advertises_its_prompt_and_resources_and_lists_exactly_them(bare_app, connector, mode):
    async with connector(build_server(bare_app), mode) as client:
        capabilities = client.server_capabilities
        prompts = [prompt.name for prompt in (await client.list_prompts()).prompts]
        resources = [str(resource.uri) for resource in (await client.list_resources()).resources]
        templates = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
    assert capabilities.tools and capabilities.prompts and capabilities.resources
    assert capabilities.completions is None and capabilities.logging is None
    assert capabilities.resources.subscribe is False  # no resource sends updates, on either revision
    assert (prompts, resources, templates) == (["after_sales_agent"], ["aftersales://policy"], [TICKET_URI, ORDER_URI])


async def test_the_server_says_its_tool_prompt_and_resource_lists_never_change(bare_app, connector, mode):
    async with connector(build_server(bare_app), mode) as client:
        capabilities = client.server_capabilities
    changing = (capabilities.tools.list_changed, capabilities.prompts.list_changed, capabilities.resources.list_changed)
    assert changing == (False, False, False)  # every one is registered when the server is built


class TasksGet(Request[dict[str, Any], str]):
    """tasks/get of the tasks extension (io.modelcontextprotocol/tasks), which this server does not implement."""

    method: str = "tasks/get"
    params: dict[str, Any]


async def test_tasks_get_is_method_not_found_because_the_server_does_not_implement_the_tasks_extension(
    bare_app, connector, mode
):
    async with connector(build_server(bare_app), mode) as client:
        extensions = client.server_capabilities.extensions or {}
        refused = await refusal(client.session.send_request(TasksGet(params={"taskId": "T-1"}), EmptyResult))
    # -32021 (a client capability is missing) is what a server with the extension answers a client without it.
    assert "io.modelcontextprotocol/tasks" not in extensions and refused.error.code == METHOD_NOT_FOUND


async def test_a_server_with_no_prompts_or_resources_advertises_neither(bare_app, connector, mode):
    async with connector(tools_only(), mode) as client:
        capabilities = client.server_capabilities
        prompt = await refusal(client.get_prompt("after_sales_agent"))
        assert (await client.list_tools()).tools
    assert capabilities.tools is not None and (capabilities.prompts, capabilities.resources) == (None, None)
    assert prompt.error.message == "Unknown prompt: 'after_sales_agent'. This server has no prompts."


async def test_prompts_and_resources_registered_later_are_advertised_and_unknown_names_stay_invalid_params(
    bare_app, connector, mode
):
    server = tools_only()

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

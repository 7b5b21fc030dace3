"""What `serve` prints once it listens: the MCP URL, and in development a ready token with a client snippet."""

from collections.abc import Sequence

CLIENT_SNIPPET = """\
Development token for caller "support-bot" (scopes tickets:read, tickets:write, valid 30 days):

    export AFTERSALES_TOKEN={token}

Connect with the Python SDK:

    import asyncio, os
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        headers = {{"Authorization": f"Bearer {{os.environ['AFTERSALES_TOKEN']}}"}}
        transport = streamable_http_client("{url}", http_client=httpx2.AsyncClient(headers=headers))
        async with Client(transport) as client:
            result = await client.call_tool("after_sales_query_ticket", {{"ticket_id": "T-2026-0325"}})
            print(result.structured_content)

    asyncio.run(main())

Or the MCP Inspector: npx @modelcontextprotocol/inspector, transport "Streamable HTTP", URL {url},
header "Authorization: Bearer <the token above>". Desktop hosts (Claude Desktop, VS Code, Cursor, Claude Code):
see docs/hosts.md, "Connecting from MCP hosts".
"""


def mcp_url(host: str, port: int) -> str:
    """The URL clients use for the bound address (IPv6 literals in brackets)."""
    return f"http://[{host}]:{port}/mcp" if ":" in host else f"http://{host}:{port}/mcp"


def announcement(url: str, workers: int = 1, cpus: Sequence[int] = ()) -> str:
    """The line that says the server answers now (how many processes do, and the CPU each is pinned to, if any)."""
    processes = f" with {workers} worker processes" if workers > 1 else ""
    if len(cpus) == 1:
        processes += f" pinned to CPU {cpus[0]}"
    elif cpus:
        processes += f" pinned to CPUs {', '.join(str(cpu) for cpu in cpus)}"
    return f"aftersales: serving MCP at {url}{processes}  (health: /healthz, readiness: /readyz, metrics: /metrics)\n"

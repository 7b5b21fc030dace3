"""An agent in a child process that only lists the tools of its world and writes what it was shown to a file."""

import asyncio
import json
import os
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


async def main(out: str) -> None:
    headers = {"Authorization": f"Bearer {os.environ['AFTERSALES_TOKEN']}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(os.environ["AFTERSALES_MCP_URL"], http_client=http)) as client,
    ):
        tools = (await client.list_tools()).tools
    with open(out, "w", encoding="utf-8") as written:
        json.dump({tool.name: tool.title for tool in tools}, written)


asyncio.run(main(sys.argv[1]))

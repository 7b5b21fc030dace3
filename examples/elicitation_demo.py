"""Try the input_required flow by hand: open a refund ticket and answer the server's forms in this terminal.

    make serve                                   # in one terminal; copy the token it prints
    AFTERSALES_TOKEN=... .venv/bin/python examples/elicitation_demo.py [--legacy] [--order O-2026-001423]

With protocol 2026-07-28 (the default) the server answers the first call with `input_required` and the
client retries with your answers; with --legacy (2025-11-25) the server sends `elicitation/create` mid-call.
The same callback below serves both.
"""

import argparse
import asyncio
import json
import os
import uuid

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import ElicitRequestFormParams, ElicitResult


async def ask_person(_context: object, params: ElicitRequestFormParams) -> ElicitResult:
    """Show the server's question and form, and read the answer from the keyboard."""
    print(f"\nThe server asks: {params.message}")
    content: dict[str, object] = {}
    for name, field in params.requested_schema.get("properties", {}).items():
        options = field.get("oneOf") or [{"const": value, "title": value} for value in field.get("enum", [])]
        if options:
            for number, option in enumerate(options, start=1):
                print(f"  {number}. {option['title']}")
            choice = input(f"{field.get('title', name)} (number, or d to decline, c to cancel): ").strip().lower()
            if choice in ("d", "c"):
                return ElicitResult(action="decline" if choice == "d" else "cancel")
            content[name] = options[int(choice) - 1]["const"]
        elif field.get("type") == "boolean":
            choice = input(f"{field.get('title', name)} [y/n, or c to cancel]: ").strip().lower()
            if choice == "c":
                return ElicitResult(action="cancel")
            content[name] = choice.startswith("y")
    return ElicitResult(action="accept", content=content)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:8000/mcp")
    parser.add_argument("--order", default="O-2026-001423", help="A delivered order (default: the VIP laptop story).")
    parser.add_argument("--legacy", action="store_true", help="Use protocol 2025-11-25 instead of 2026-07-28.")
    args = parser.parse_args()
    headers = {"Authorization": f"Bearer {os.environ['AFTERSALES_TOKEN']}"}
    arguments = {
        "order_id": args.order,
        "line_no": 1,
        "kind": "return_and_refund",
        "reason_code": "defective",
        "description": "The screen flickers and goes black.",
        "idempotency_key": str(uuid.uuid4()),
    }
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(
            streamable_http_client(args.url, http_client=http),
            mode="legacy" if args.legacy else "auto",
            elicitation_callback=ask_person,
        ) as client,
    ):
        print(f"protocol {client.protocol_version}; calling after_sales_create_ticket without a refund method")
        result = await client.call_tool("after_sales_create_ticket", arguments)
    print("\nResult:" if not result.is_error else "\nTool error:")
    print(
        json.dumps(result.structured_content, indent=2, ensure_ascii=False)
        if result.structured_content
        else result.content[0].text
    )


if __name__ == "__main__":
    asyncio.run(main())

"""Try the input_required flow by hand: open a refund ticket and answer the server's forms in this terminal.

    make serve                                   # in one terminal; it prints a token
    export AFTERSALES_TOKEN=...                  # the token it printed
    .venv/bin/python examples/elicitation_demo.py [--legacy] [--order O-2026-001423 [--line 1]]

The demo opens a return for a delivered order line inside its return window that has no open ticket yet: it
starts with the VIP laptop story (O-2026-001423) and walks back through earlier orders, so it can be run again
and again. Once the lines near it all have tickets, reset the demo data (every ticket created since goes):
`AFTERSALES_DATA_DIR=var .venv/bin/aftersales seed reset`.

With protocol 2026-07-28 (the default) the server answers the first call with `input_required` and the client
retries with your answers; with --legacy (2025-11-25) the server sends `elicitation/create` mid-call. The same
callback below serves both. The server is AFTERSALES_MCP_URL (default http://127.0.0.1:8000/mcp), or --url.
"""

import argparse
import asyncio
import json
import os
import signal
import sys
import uuid
from collections.abc import Iterator
from types import FrameType
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, ElicitRequestFormParams, ElicitResult

STORY_ORDER = "O-2026-001423"  # the VIP laptop story: large enough to need a confirmation too
# Searching, the demo prefers refunds above the server's default confirmation threshold
# (AFTERSALES_CONFIRM_ABOVE_MINOR, ¥500.00), so the server asks for the method and a confirmation in one round.
SEARCH_ABOVE_MINOR = 50000
ORDERS_TO_SEARCH = 60
LINES_PER_ORDER = 3
DEFAULT_URL = "http://127.0.0.1:8000/mcp"


def ask(prompt: str, accepted: set[str]) -> str:
    """Read one answer from `accepted`, asking again until it is one; Ctrl-C or Ctrl-D cancel the form."""
    while True:
        try:
            answer = input(prompt).strip().lower()
        except (EOFError, KeyboardInterrupt):
            print(" (cancelled)")
            return "c"
        if answer in accepted:
            return answer
        print(f"  Please answer one of: {', '.join(sorted(accepted, key=lambda value: (len(value), value)))}.")


async def ask_person(_context: object, params: ElicitRequestFormParams) -> ElicitResult:
    """Show the server's question and form, and read the answer from the keyboard."""
    print(f"\nThe server asks: {params.message}")
    content: dict[str, Any] = {}
    for name, field in params.requested_schema.get("properties", {}).items():
        title = field.get("title", name)
        options = field.get("oneOf") or [{"const": value, "title": value} for value in field.get("enum", [])]
        if options:
            for number, option in enumerate(options, start=1):
                print(f"  {number}. {option['title']}")
            numbers = {str(number) for number in range(1, len(options) + 1)}
            choice = ask(f"{title} (number, or d to decline, c to cancel): ", numbers | {"d", "c"})
            if choice in ("d", "c"):
                return ElicitResult(action="decline" if choice == "d" else "cancel")
            content[name] = options[int(choice) - 1]["const"]
        elif field.get("type") == "boolean":
            choice = ask(f"{title} [y/n, or c to cancel]: ", {"y", "yes", "n", "no", "c"})
            if choice == "c":
                return ElicitResult(action="cancel")
            content[name] = choice.startswith("y")
    return ElicitResult(action="accept", content=content)


def candidates(order: str | None, line: int | None) -> Iterator[tuple[str, int]]:
    """Order lines to try: the given order, else the story's order and the ones placed before it."""
    prefix, number = (order or STORY_ORDER).rsplit("-", 1)
    for offset in range(1 if order else ORDERS_TO_SEARCH):
        order_id = f"{prefix}-{int(number) - offset:0{len(number)}d}"
        for line_no in [line] if line else range(1, LINES_PER_ORDER + 1):
            yield order_id, line_no


def text_of(result: CallToolResult) -> str:
    """The result's text content."""
    return " ".join(getattr(block, "text", "") for block in result.content)


async def open_a_return(client: Client, order: str | None, line: int | None) -> CallToolResult | None:
    """Create a return on the first candidate line that can take one; None when no candidate could."""
    skipped = 0
    for order_id, line_no in candidates(order, line):
        where = {"order_id": order_id, "line_no": line_no}
        # Read-only: is the line delivered, inside its window, returnable, with a choice of refund methods?
        estimate = await client.call_tool(
            "after_sales_estimate_refund", where | {"reason_code": "defective", "quantity": 1}
        )
        quote = estimate.structured_content or {}
        wanted = order is not None or quote.get("total", 0) > SEARCH_ABOVE_MINOR
        if estimate.is_error or len(quote.get("refund_methods_allowed", [])) < 2 or not wanted:
            skipped += 1
            continue
        print(f"{order_id} line {line_no}: {quote['item']['name']}, refund {quote['total_display']}")
        print("calling after_sales_create_ticket without a refund method, so the server has to ask you")
        arguments = where | {
            "kind": "return_and_refund",
            "reason_code": "defective",
            "description": "It stopped working after two days.",
            "idempotency_key": str(uuid.uuid4()),
        }
        result = await client.call_tool("after_sales_create_ticket", arguments)
        if result.is_error and "already has an open ticket" in text_of(result):
            print("  it already has an open ticket (from an earlier run); trying the next line\n")
            continue
        return result
    print(f"No line could take a new return ({skipped} were not delivered, past their window, not returnable,")
    print("refundable to one method only or, when searching, ¥500.00 or less; the rest already have open tickets).")
    return None


class TokenRefused(Exception):
    """The server answered HTTP 401: the token is unknown to it, expired or malformed."""


async def run(args: argparse.Namespace, token: str) -> int:
    """Connect, open one return, and print what the server answered."""
    statuses: set[int] = set()

    async def note(response: httpx2.Response) -> None:
        statuses.add(response.status_code)  # the SDK reports every HTTP error status alike

    # No read timeout: on 2025-11-25 the call's response stream stays open while you think about your answer.
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"},
        timeout=httpx2.Timeout(30, read=None),
        event_hooks={"response": [note]},
    )
    try:
        async with (
            http,
            Client(
                streamable_http_client(args.url, http_client=http),
                mode="legacy" if args.legacy else "auto",
                elicitation_callback=ask_person,
            ) as client,
        ):
            print(f"connected to {args.url}, protocol {client.protocol_version}")
            result = await open_a_return(client, args.order, args.line)
    except Exception as error:
        if 401 in statuses and isinstance(innermost(error), MCPError):
            raise TokenRefused from None
        raise
    if result is None:
        print("Reset the demo data with: AFTERSALES_DATA_DIR=var .venv/bin/aftersales seed reset  (or pass --order)")
        return 1
    print("\nTool error:" if result.is_error else "\nResult:")
    content = result.structured_content
    print(json.dumps(content, indent=2, ensure_ascii=False) if content else text_of(result))
    return 1 if result.is_error else 0


def interrupt(_signum: int, _frame: FrameType | None) -> None:
    """Stop whatever runs, even a blocking prompt."""
    raise KeyboardInterrupt


def innermost(error: BaseException) -> BaseException:
    """The one real failure inside the exception groups task groups wrap it in."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def explain(error: BaseException, url: str) -> str:
    """A failure in one paragraph instead of a traceback."""
    error = innermost(error)
    if isinstance(error, MCPError) and error.code == INVALID_PARAMS and "requestState" in error.message:
        return (
            "Your answers came back after the server's round expired (AFTERSALES_STATE_TTL, 10 minutes by "
            "default), so it did not accept them and created nothing. Run the demo again and answer within the "
            "time."
        )
    if isinstance(error, MCPError):
        return f"The server ended the call with an error ({error.code}): {error.message}. Run the demo again."
    if isinstance(error, httpx2.ConnectError):
        return f"Nothing answers at {url}. Start the server (make serve) or pass --url / AFTERSALES_MCP_URL."
    if isinstance(error, TokenRefused):
        return (
            "The server refused the token (HTTP 401). Use the token `make serve` printed, or issue one with the "
            "server's data dir: AFTERSALES_DATA_DIR=var .venv/bin/aftersales token issue --caller support-bot"
        )
    return f"The demo stopped: {type(error).__name__}: {error}"


def main() -> int:
    """Parse the options and run the demo."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default=os.environ.get("AFTERSALES_MCP_URL", DEFAULT_URL), help="The MCP endpoint.")
    parser.add_argument("--order", help="Use this order only (default: search from the VIP laptop story).")
    parser.add_argument("--line", type=int, help="Use this line of the order only.")
    parser.add_argument("--legacy", action="store_true", help="Use protocol 2025-11-25 instead of 2026-07-28.")
    args = parser.parse_args()
    # Ctrl-C must reach input() at once; asyncio's own handler would only cancel the task behind the prompt.
    signal.signal(signal.SIGINT, interrupt)
    token = os.environ.get("AFTERSALES_TOKEN")
    if not token:
        print("Set AFTERSALES_TOKEN to the token `make serve` printed (export AFTERSALES_TOKEN=...).")
        return 2
    try:
        return asyncio.run(run(args, token))
    except BaseException as error:
        if isinstance(innermost(error), KeyboardInterrupt):
            print("\nStopped.")
            return 130
        if not isinstance(error, Exception):
            raise
        print(f"\n{explain(error, args.url)}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Before the peer is measured: it answers as the server does (a query, an estimate, and creates read back)."""

import uuid
from typing import Any

import aiohttp

from bench.load import Session
from bench.scenarios import Inputs, answers

# Fields two correct answers differ in: a quote's fresh handle, and its expiry a few seconds later.
UNIQUE = {"quote_id", "expires_at"}


def _differences(first: dict[str, Any], second: dict[str, Any]) -> list[str]:
    """The fields, outside UNIQUE, in which two answers differ."""
    return sorted(
        name for name in first.keys() | second.keys() if name not in UNIQUE and first.get(name) != second.get(name)
    )


def _create(line: tuple[str, int], kind: str) -> dict[str, Any]:
    return {
        "order_id": line[0],
        "line_no": line[1],
        "kind": kind,
        "reason_code": "defective",
        "description": "Stopped working after a month.",
        "idempotency_key": f"bench-{uuid.uuid4()}",
    }


async def check(server_url: str, token: str, peer_url: str, inputs: Inputs) -> None:
    """Raise when the peer's answer to a query, an estimate or a create differs from the server's.

    It takes two repairable lines and one returnable line from `inputs`: call it before the scenarios share them out.
    """
    async with aiohttp.ClientSession() as http:
        server, peer = Session(http, server_url, token), Session(http, peer_url, None)

        async def both(tool: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
            ours = await server.call(tool, arguments)
            theirs = await peer.call(tool, arguments)
            return ours["structuredContent"], theirs["structuredContent"]

        def same(what: str, ours: dict[str, Any], theirs: dict[str, Any]) -> None:
            if differing := _differences(ours, theirs):
                raise RuntimeError(f"the FastMCP peer answers {what} unlike the server, in {differing}")

        same("a query", *await both("after_sales_query_ticket", {"ticket_id": inputs.tickets[0]}))
        order_id, line_no = inputs.returnable[0]
        estimate = {"order_id": order_id, "line_no": line_no, "reason_code": "defective"}
        same("an estimate", *await both("after_sales_estimate_refund", estimate))

        async def read_back(what: str, made: dict[str, Any], reader: Session) -> None:
            ticket = made["structuredContent"]["ticket"]
            read = await reader.call("after_sales_query_ticket", {"ticket_id": ticket["ticket_id"]})
            same(what, ticket, read["structuredContent"])

        # What each writes, the other reads back: the two write the same rows.
        repair = _create(inputs.repairable.pop(), "repair")
        await read_back("a create", await peer.call("after_sales_create_ticket", repair), server)
        repair = _create(inputs.repairable.pop(), "repair")
        await read_back("a query of a created ticket", await server.call("after_sales_create_ticket", repair), peer)
        refund = _create(inputs.returnable.pop(), "return_and_refund")
        first = await peer.call("after_sales_create_ticket", refund)
        if first.get("resultType") != "input_required":
            raise RuntimeError("the FastMCP peer asked nothing in a two-round create")
        done = await peer.call("after_sales_create_ticket", refund, inputResponses=answers(first))
        await read_back("a two-round create", done, server)

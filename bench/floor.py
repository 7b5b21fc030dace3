"""The floor: a server on the same SDK and transport with one no-op tool shaped like after_sales_query_ticket."""

import argparse
import socket

import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.applications import Starlette
from uvicorn.supervisors.multiprocess import Multiprocess

from aftersales.cli.affinity import allowed_cpus, pin
from aftersales.services.views import EventView, ItemView, RefundView, TicketView

TICKET = TicketView(
    ticket_id="T-2026-0001",
    order_id="O-2026-000001",
    item=ItemView(sku="LAP-001", name="Lenovo ThinkPad X1 Carbon Gen 12", quantity=1),
    kind="return_and_refund",
    status="awaiting_return",
    stage="awaiting_return",
    refund=RefundView(amount=129900, currency="CNY", method="original_payment", display="¥1,299.00"),
    channel=None,
    created_at="2026-11-26T08:00:00Z",
    updated_at="2026-11-27T09:30:00Z",
    next_step="The customer ships the item back with the prepaid label by 2026-12-11.",
    timeline=[
        EventView(at="2026-11-26T08:00:00Z", event="created", actor="customer", note="Ticket opened.", channel=None)
    ]
    * 4,
    timeline_total=4,
)


def build() -> MCPServer:
    """An MCPServer with the one no-op tool."""
    server = MCPServer("floor", log_level="WARNING")

    @server.tool(name="after_sales_query_ticket")
    def after_sales_query_ticket(ticket_id: str) -> TicketView:
        return TICKET

    return server


def app() -> Starlette:
    """The ASGI app, for uvicorn's factory mode (its several worker processes each build one)."""
    return build().streamable_http_app()


def listen(port: int) -> socket.socket:
    """A TCP socket made as `aftersales serve` makes its own.

    uvicorn's own bind for several workers makes its socket with protocol 0, so asyncio does not set TCP_NODELAY on
    the connections it accepts, and replies wait for delayed ACKs (measured: 260 instead of 700 rps, p50 52 ms).
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=1, help="uvicorn worker processes, as `serve --workers`.")
    parser.add_argument("--pin-cpus", action="store_true", help="Run on one CPU, as `serve --pin-cpus` (1 worker).")
    args = parser.parse_args()
    if args.pin_cpus:
        if args.workers != 1:
            parser.error("--pin-cpus pins the one process of --workers 1")
        pin(allowed_cpus()[0])  # the CPU `serve --pin-cpus` takes
    config = uvicorn.Config("bench.floor:app", factory=True, workers=args.workers, log_level="warning")
    sock = listen(args.port)
    if args.workers == 1:
        uvicorn.Server(config).run(sockets=[sock])
    else:
        Multiprocess(config, sockets=[sock]).run()

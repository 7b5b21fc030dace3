"""The floor: a server on the same SDK and transport with one no-op tool shaped like after_sales_query_ticket."""

import argparse

import uvicorn
from mcp.server.mcpserver import MCPServer

from aftersales.services.views import EventView, ItemView, RefundView, TicketView

TICKET = TicketView(
    ticket_id="T-2026-0001",
    order_id="O-2026-000001",
    item=ItemView(sku="LAP-001", name="Lenovo ThinkPad X1 Carbon Gen 12", quantity=1),
    kind="return_and_refund",
    status="awaiting_return",
    stage="awaiting_return",
    refund=RefundView(amount=129900, currency="CNY", method="original_payment", display="¥1,299.00"),
    created_at="2026-11-26T08:00:00Z",
    updated_at="2026-11-27T09:30:00Z",
    next_step="The customer ships the item back with the prepaid label by 2026-12-11.",
    timeline=[EventView(at="2026-11-26T08:00:00Z", event="created", actor="customer", note="Ticket opened.")] * 4,
    timeline_total=4,
)


def build() -> MCPServer:
    """An MCPServer with the one no-op tool."""
    server = MCPServer("floor", log_level="WARNING")

    @server.tool(name="after_sales_query_ticket")
    def after_sales_query_ticket(ticket_id: str) -> TicketView:
        return TICKET

    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    uvicorn.run(build().streamable_http_app(), host="127.0.0.1", port=args.port, log_level="warning")

"""One module per tool; `register` adds them to a server in a stable order."""

from mcp.server.mcpserver import MCPServer

from aftersales.app import App
from aftersales.domain.calls import TOOL_NAMES
from aftersales.mcp.tools import (
    cancel_ticket,
    create_ticket,
    estimate_refund,
    find_orders,
    get_order,
    list_tickets,
    query_ticket,
)

NAMES = TOOL_NAMES  # named in domain.calls, where the audit and the metrics read them too


def register(server: MCPServer, app: App) -> None:
    """Add every tool, in the order tools/list shows them (the order of NAMES)."""
    for module in (query_ticket, estimate_refund, create_ticket, find_orders, get_order, list_tickets, cancel_ticket):
        module.register(server, app)

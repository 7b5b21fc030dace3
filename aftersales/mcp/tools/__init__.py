"""One module per tool; `register` adds them to a server in a stable order."""

from mcp.server.mcpserver import MCPServer

from aftersales.app import App
from aftersales.mcp.tools import create_ticket, estimate_refund, query_ticket

NAMES = (query_ticket.NAME, estimate_refund.NAME, create_ticket.NAME)


def register(server: MCPServer, app: App) -> None:
    """Add every tool, in the order tools/list shows them."""
    query_ticket.register(server, app)
    estimate_refund.register(server, app)
    create_ticket.register(server, app)

"""after_sales_list_tickets: the tickets of a customer or of an order."""

from mcp.server.mcpserver import MCPServer

from aftersales.app import App
from aftersales.domain.calls import LIST_TICKETS
from aftersales.domain.paging import DEFAULT_LIMIT, MAX_LIMIT
from aftersales.mcp.fields import Limit, OptionalCursor, OptionalCustomerId, OptionalOrderId
from aftersales.mcp.tools.reads import read_tool
from aftersales.services import ticket_queries
from aftersales.services.lookup_views import TicketsPage

NAME = LIST_TICKETS
TITLE = "List a customer's or an order's tickets"
DESCRIPTION = f"""\
List the after-sales tickets of one customer (customer_id) or of one order (order_id), newest first, each with its \
number, kind, stage, status, refund amount and next step in plain words.

Use it when the customer asks about "my return" or "my refund" without a ticket number: give exactly one of \
customer_id (from after_sales_find_orders) or order_id, then tell them each ticket's stage and next step. Call \
after_sales_query_ticket with a ticket_id for its timeline.

Do not use it when the customer gave a ticket number (after_sales_query_ticket), nor to see whether a line can get \
a new ticket (after_sales_get_order says so, per kind).

Read-only: it changes nothing and creates no state. Pages hold up to limit tickets (default {DEFAULT_LIMIT}, at \
most {MAX_LIMIT}); when next_cursor is not null, call again with the same customer_id or order_id and cursor set to \
it for older tickets. A cursor is only a position in that one listing: nothing is stored and it does not expire. \
An unknown order number is an error; a customer_id without tickets gives an empty list.

Usual sequence: after_sales_find_orders -> after_sales_list_tickets with its customer_id -> \
after_sales_query_ticket for the ticket the customer means, or after_sales_cancel_ticket when they withdraw it."""


def register(server: MCPServer, app: App) -> None:
    """Add the tool to `server`."""

    @read_tool(server, app.database, NAME, TITLE, DESCRIPTION)
    def after_sales_list_tickets(
        customer_id: OptionalCustomerId = None,
        order_id: OptionalOrderId = None,
        limit: Limit = DEFAULT_LIMIT,
        cursor: OptionalCursor = None,
    ) -> TicketsPage:
        return ticket_queries.list_tickets(app.uow(), customer_id, order_id, limit, cursor, app.cursors)

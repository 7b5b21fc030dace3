"""after_sales_query_ticket: read one ticket."""

from mcp.server.mcpserver import MCPServer

from aftersales.app import App
from aftersales.domain.calls import QUERY_TICKET
from aftersales.mcp.fields import TicketId
from aftersales.mcp.tools.reads import read_tool
from aftersales.services import ticket_queries
from aftersales.services.views import TicketView

NAME = QUERY_TICKET
TITLE = "Look up an after-sales ticket"
DESCRIPTION = """\
Look up one after-sales ticket (refund, return, exchange or repair) by its number and report where it stands.

Use it when the customer asks about an existing ticket: its stage, the refund amount and method, what happens \
next and by when, and what has happened so far. Also use it right after after_sales_create_ticket to show the \
customer the new ticket, or when that tool reports that an open ticket already exists for the same order line.

Do not use it to find tickets by order number or customer (after_sales_list_tickets does that), and do not use \
it to open a ticket or estimate a refund: use after_sales_estimate_refund and after_sales_create_ticket for those. \
Before after_sales_cancel_ticket, use it to check that the ticket is still in a stage that can be cancelled.

Read-only: it changes nothing and creates no state, so it is safe to call as often as needed.

Usual sequence: after_sales_list_tickets (when the customer has no ticket number) -> after_sales_query_ticket -> \
tell the customer the stage and the next step with its date.

Returns: stage (review, awaiting_return, repair, refund, closed), status, the item, the refund (null for \
exchanges and repairs) with a display string, next_step in plain words with a date, and the latest 10 timeline \
events oldest first (timeline_total says how many exist). If the number is malformed or unknown, the error says \
what to ask the customer."""


def register(server: MCPServer, app: App) -> None:
    """Add the tool to `server`."""

    @read_tool(server, app.database, NAME, TITLE, DESCRIPTION)
    def after_sales_query_ticket(ticket_id: TicketId) -> TicketView:
        return ticket_queries.query_ticket(app.uow(one_statement=True), ticket_id)

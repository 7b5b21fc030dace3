"""after_sales_find_orders: a customer's orders, found by email, phone or customer id."""

from mcp.server.mcpserver import MCPServer

from aftersales.app import App
from aftersales.domain.calls import FIND_ORDERS
from aftersales.domain.paging import DEFAULT_LIMIT, MAX_LIMIT
from aftersales.mcp.fields import Limit, OptionalCursor, OptionalCustomerId, OptionalEmail, OptionalPhone
from aftersales.mcp.tools.reads import read_tool
from aftersales.services import orders
from aftersales.services.lookup_views import OrdersPage

NAME = FIND_ORDERS
TITLE = "Find a customer's orders"
DESCRIPTION = f"""\
Find the orders of one customer by the email address or mobile number on their account, or by customer_id, \
newest first, each with its dates, status, channel and items.

Use it when the customer has no order number at hand ("the headphones I bought last week"): give exactly one of \
email, phone or customer_id, read the orders back to the customer by date and items, and ask which one they mean. \
A phone number is read as a mainland China mobile number: spaces, hyphens and brackets do not matter, and +86, \
0086 or 86 in front is optional. A number several accounts share lists the orders of each (every order names its \
customer_id).

Do not use it when the customer gave an order number (call after_sales_get_order), nor to find tickets \
(after_sales_list_tickets) or a ticket by number (after_sales_query_ticket).

Read-only: it changes nothing and creates no state. Pages hold up to limit orders (default {DEFAULT_LIMIT}, at most \
{MAX_LIMIT}); when next_cursor is not null, call again with the same email, phone or customer_id and cursor set to \
it for older orders. A cursor is only a position in that one search: nothing is stored and it does not expire.

When nothing is found the answer is one error, the same whether no account uses that email or phone or the account \
has no orders, so it never tells anyone whether an email or phone is registered: ask the customer for another email \
or number they may have ordered with, or for the order number.

Usual sequence: after_sales_find_orders -> the customer picks an order -> after_sales_get_order -> \
after_sales_estimate_refund (refunds) or after_sales_create_ticket; or after_sales_list_tickets with the \
customer_id to see their tickets."""


def register(server: MCPServer, app: App) -> None:
    """Add the tool to `server`."""

    @read_tool(server, app.database, NAME, TITLE, DESCRIPTION)
    def after_sales_find_orders(
        email: OptionalEmail = None,
        phone: OptionalPhone = None,
        customer_id: OptionalCustomerId = None,
        limit: Limit = DEFAULT_LIMIT,
        cursor: OptionalCursor = None,
    ) -> OrdersPage:
        return orders.find_orders(app.uow(), email, phone, customer_id, limit, cursor, app.cursors)

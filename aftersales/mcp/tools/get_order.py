"""after_sales_get_order: one order, and what after-sales allows for each of its lines now."""

from mcp.server.mcpserver import MCPServer

from aftersales.app import App
from aftersales.clock import now
from aftersales.domain.calls import GET_ORDER
from aftersales.mcp.fields import OrderId
from aftersales.mcp.tools.reads import read_tool
from aftersales.services import orders
from aftersales.services.lookup_views import OrderView

NAME = GET_ORDER
TITLE = "Show an order and what each line allows"
DESCRIPTION = """\
Show one order with every line and, for each line, what after-sales allows now: which ticket kinds (refund_only, \
return_and_refund, exchange, repair) can be opened today and why each other one cannot, how many units a new \
ticket may cover, when the return window closes and the warranty ends, and the line's open ticket if it has one.

Use it before estimating or opening a ticket, to pick the line_no and a kind the shop accepts instead of guessing. \
The verdicts come from the very rules after_sales_estimate_refund and after_sales_create_ticket apply, so a kind \
marked possible is accepted for up to units_available units and one marked impossible is refused for the reason in \
why_not (as of as_of: return windows and warranties close as time passes). Refunds go only to \
refund_methods_allowed.

Do not use it to find an order without its number (after_sales_find_orders), nor to follow a ticket \
(after_sales_query_ticket).

Read-only: it changes nothing and creates no state, so it is safe to call as often as needed.

Usual sequence: after_sales_find_orders (when the customer has no order number) -> after_sales_get_order -> \
after_sales_estimate_refund for a refund kind -> after_sales_create_ticket; for a line with an open ticket, \
after_sales_query_ticket with open_ticket_id."""


def register(server: MCPServer, app: App) -> None:
    """Add the tool to `server`."""

    @read_tool(server, app.database, NAME, TITLE, DESCRIPTION)
    def after_sales_get_order(order_id: OrderId) -> OrderView:
        return orders.get_order(app.uow(), order_id, now())

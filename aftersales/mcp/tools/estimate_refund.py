"""after_sales_estimate_refund: what returning one order line would pay back, pinned as a quote."""

from mcp.server.mcpserver import MCPServer

from aftersales.app import App
from aftersales.clock import now
from aftersales.domain.callers import READ
from aftersales.domain.calls import ESTIMATE_REFUND
from aftersales.durations import describe_duration
from aftersales.mcp.caller import authorize
from aftersales.mcp.error_mapping import tool_errors
from aftersales.mcp.fields import LineNo, OrderId, Quantity, Reason
from aftersales.mcp.on_database import on_database
from aftersales.mcp.tools.hints import hints
from aftersales.services import quotes
from aftersales.services.views import QuoteView

NAME = ESTIMATE_REFUND
TITLE = "Estimate a refund"


def description(held: str) -> str:
    """The model-facing description, stating the quote lifetime the server is configured with."""
    return f"""\
Estimate what the customer would get back for returning units of one delivered order line, and pin that estimate \
as a quote.

Use it before after_sales_create_ticket whenever money may be refunded (refund_only or return_and_refund), to tell \
the customer the amount and the policy behind it: the item amount (unit price x quantity less the line's discount \
share), a restocking fee when the reason is not the shop's fault, the shipping refund when it is, the total, the \
allowed refund methods and plain-words policy notes. It also tells you when a return is not possible: order not \
delivered, return window closed (with the date, and whether a warranty repair is still possible), an open ticket \
already on the line (with its number), or no units left to return.

Do not use it for exchanges or repairs (they refund nothing: call after_sales_create_ticket directly), nor to look \
up an existing ticket (after_sales_query_ticket).

It only estimates: it creates no ticket and moves no money. It stores the estimate as a quote: quotes are held for \
{held}, belong to the caller who asked (nobody else can use them), and their quote_id is passed to \
after_sales_create_ticket to lock the amount. When a quote expires, call this tool again for a fresh one.

Usual sequence: after_sales_get_order (which line, and whether a refund is possible) -> after_sales_estimate_refund \
-> tell the customer -> after_sales_create_ticket with quote_id."""


def register(server: MCPServer, app: App) -> None:
    """Add the tool to `server`."""
    ttl = app.settings.quote_ttl

    @server.tool(
        name=NAME,
        title=TITLE,
        description=description(describe_duration(ttl)),
        annotations=hints(TITLE, read_only=True, idempotent=False),
    )
    @on_database(app.database, write=True)  # it stores the quote
    @tool_errors
    def after_sales_estimate_refund(
        order_id: OrderId,
        line_no: LineNo,
        reason_code: Reason,
        quantity: Quantity = 1,
    ) -> QuoteView:
        caller = authorize(READ, NAME)
        return quotes.estimate_refund(app.uow(write=True), caller, order_id, line_no, quantity, reason_code, now(), ttl)

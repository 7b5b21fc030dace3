"""Resources: the shop's policy as agents read it, each ticket as after_sales_query_ticket shows it, and each order as
after_sales_get_order shows it."""

import re

from mcp.server.mcpserver import MCPServer

from aftersales.app import App
from aftersales.clock import now
from aftersales.domain.callers import READ
from aftersales.domain.errors import AfterSalesError
from aftersales.domain.policy_text import PolicyText, render_policy
from aftersales.domain.tickets import TICKET_NUMBER_PATTERN
from aftersales.mcp.caller import authorize
from aftersales.mcp.error_mapping import resource_errors
from aftersales.mcp.fields import ORDER_ID_PATTERN
from aftersales.mcp.on_database import on_database
from aftersales.services import orders, ticket_queries
from aftersales.settings import Settings

POLICY_URI = "aftersales://policy"
TICKET_URI = "aftersales://tickets/{ticket_id}"
ORDER_URI = "aftersales://orders/{order_id}"
VERSION_META = "aftersales/policyVersion"  # where the resource's _meta carries the policy's version


def policy_for(settings: Settings) -> PolicyText:
    """The policy text of a server configured with `settings`."""
    return render_policy(settings.thresholds, settings.quote_ttl, settings.idempotency_ttl)


def register(server: MCPServer, app: App) -> None:
    """Add the policy resource and the ticket resource template to `server`."""
    policy = policy_for(app.settings)

    @server.resource(
        POLICY_URI,
        name="after_sales_policy",
        title="The shop's after-sales policy",
        description="Return windows and restocking fees by category, whose fault a reason is and what that pays, "
        "where refunds may go, warranty repairs, when a person confirms or reviews, what can be cancelled, and how "
        f"long each step takes: generated from the rules the tools apply. Its version is in the text and in "
        f"_meta {VERSION_META}, so a harness can pin it.",
        mime_type="text/markdown",
        meta={VERSION_META: policy.version},
    )
    def after_sales_policy() -> str:
        return policy.markdown

    @server.resource(
        TICKET_URI,
        name="after_sales_ticket",
        title="An after-sales ticket",
        description="One ticket by number (T-YYYY-NNNN), as JSON: exactly what after_sales_query_ticket returns. "
        "Needs the tickets:read scope.",
        mime_type="application/json",
    )
    @on_database(app.database)
    @resource_errors
    def after_sales_ticket(ticket_id: str) -> str:
        authorize(READ, f"The resource {TICKET_URI}")
        if not re.fullmatch(TICKET_NUMBER_PATTERN, ticket_id):
            raise AfterSalesError(
                f'Ticket number "{ticket_id}" is not in the format T-YYYY-NNNN (for example T-2026-0042).',
                "Ticket numbers are the year the ticket was opened and a sequence of 4 or more digits.",
                "Ask the customer to read the number from their confirmation message, then read "
                "aftersales://tickets/<number> again.",
            )
        return ticket_queries.query_ticket(app.uow(one_statement=True), ticket_id).model_dump_json()

    @server.resource(
        ORDER_URI,
        name="after_sales_order",
        title="An order and what each line allows",
        description="One order by number (O-YYYY-NNNNNN), as JSON: exactly what after_sales_get_order returns, each "
        "line with the ticket kinds it allows now and why not. Needs the tickets:read scope.",
        mime_type="application/json",
    )
    @on_database(app.database)
    @resource_errors
    def after_sales_order(order_id: str) -> str:
        authorize(READ, f"The resource {ORDER_URI}")
        if not re.fullmatch(ORDER_ID_PATTERN, order_id):
            raise AfterSalesError(
                f'Order number "{order_id}" is not in the format O-YYYY-NNNNNN (for example O-2026-001423).',
                "Order numbers are the year the order was placed and a sequence of 6 digits.",
                "Ask the customer to read the number from their order confirmation, or find it with "
                "after_sales_find_orders, then read aftersales://orders/<number> again.",
            )
        return orders.get_order(app.uow(), order_id, now()).model_dump_json()

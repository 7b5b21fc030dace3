"""The MCPServer named aftersales: instructions, tools, the policy resource and agent prompt, and the argument gate."""

from mcp.server.mcpserver import MCPServer, RequestStateSecurity

from aftersales import __version__
from aftersales.app import App
from aftersales.domain.calls import TOOL_NAMES
from aftersales.mcp import prompts, resources, tools
from aftersales.mcp.arguments import ArgumentGate
from aftersales.mcp.described import DescribedTools, server_set
from aftersales.mcp.ratelimit import Limit, RateLimiter
from aftersales.mcp.recorder import CallRecorder
from aftersales.mcp.spans import CallSpans
from aftersales.mcp.surface import ServedSurface
from aftersales.mcp.tracing import CallTracer
from aftersales.mcp.url_questions import UrlQuestions
from aftersales.otel import switch

INSTRUCTIONS = """\
After-sales tools for an online shop: refunds, returns, exchanges and repairs of delivered order lines.

Usual flow: when a customer asks about an existing ticket, call after_sales_query_ticket with the ticket number \
and tell them the stage and the next step with its date. Without a number, find their orders by the email or \
phone on their account (after_sales_find_orders) or list their tickets (after_sales_list_tickets), and call \
after_sales_get_order to see which kinds of ticket each line allows now. \
When they want money back for a delivered item, call \
after_sales_estimate_refund for that order line first and tell them the amount and the policy behind it. When they \
agree, call after_sales_create_ticket with the quote_id and one idempotency_key for this intended ticket, reusing the \
key on every retry. For an exchange or a repair, call after_sales_create_ticket directly. The server may ask the \
person for the refund method or a confirmation mid-call; let it, rather than guessing. Finally tell the customer the \
ticket number and the next step. When a customer withdraws a ticket still in review or awaiting the return \
parcel, call after_sales_cancel_ticket with their words as the reason.

Amounts are integer minor units (fen for CNY) with a display string; times are UTC. Errors say what was wrong, \
the rule, and what to do next: follow them instead of retrying unchanged. The shop's whole policy, generated from \
the rules the tools apply, is the resource aftersales://policy."""


def build_server(app: App) -> MCPServer:
    """Create the server with every tool, resource and prompt registered."""
    server = MCPServer(
        "aftersales",
        title="After-sales service",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level=app.settings.log_level,
        # Shared keys let any replica (or a restarted one) accept the state another sealed.
        request_state_security=RequestStateSecurity(
            keys=[key.encode() for key in app.state_keys], ttl=app.settings.state_ttl.total_seconds()
        ),
    )
    tools.register(server, app)
    described = DescribedTools(server_set(server, app.settings))  # a bad set file stops the start, naming it
    resources.register(server, app)
    prompts.register(server, app)
    app.metrics.bind(TOOL_NAMES, audit_dropped=lambda: app.audit.dropped)
    settings = app.settings
    # A world's trace sees every call exactly as it crossed the wire, so it goes before the SDK's own middlewares
    # (a requestState the SDK refuses is a call the trace must show too).
    server.middleware.insert(
        0, CallTracer(lambda world, draft: app.worlds.append_trace(world, draft), app.form_answerer, app.database)
    )
    # With traces on, the request span the SDK opens is told the call's caller, tool and outcome, first inside the
    # SDK's requestState boundary so an asking round's state can name its span (aftersales.mcp.spans).
    if switch.enabled():
        server.middleware.append(CallSpans())
    # Then, outermost first: advertise only what is served, list the tools with the texts of the set in force,
    # record what the client finally got, then spend rate tokens, then check the arguments.
    server.middleware.extend(
        [
            ServedSurface(server),
            described,
            CallRecorder(app.audit, app.metrics),
            RateLimiter(
                server,
                read=Limit(settings.rate_read_per_minute, settings.rate_read_burst),
                write=Limit(settings.rate_write_per_minute, settings.rate_write_burst),
                state_ttl=settings.state_ttl.total_seconds(),
                shared=app.rate_buckets,
                database=app.database,
            ),
            ArgumentGate(server),
            UrlQuestions(),  # innermost: the bank-account question's round is a result every layer above sees
        ]
    )
    return server

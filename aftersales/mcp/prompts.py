"""The after_sales_agent prompt: an agent's instructions for this desk, with the shop's policy embedded."""

import re
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts.base import Message, UserMessage
from mcp_types import EmbeddedResource, TextResourceContents
from pydantic import Field

from aftersales.app import App
from aftersales.domain.errors import AfterSalesError
from aftersales.mcp.error_mapping import protocol_error
from aftersales.mcp.resources import POLICY_URI, policy_for

NAME = "after_sales_agent"
CUSTOMER_ID_PATTERN = r"C-\d{5,}"  # the customer numbers the shop issues: C-00042
LANGUAGE_PATTERN = r"[^\x00-\x1f\x7f]{2,40}"  # a language's name or tag, on one line


def instructions(customer_id: str | None, language: str | None, version: str) -> str:
    """What an agent at this desk does, in order; the policy it follows comes after, as a resource."""
    if customer_id is None:
        who = (
            "You do not know yet who you are talking to. Before acting on anything, ask for the email or phone "
            "number they ordered with (or an order number) and find their orders with after_sales_find_orders."
        )
    else:
        who = (
            f"The host says the customer is {customer_id}. Act only on orders and tickets of {customer_id}: check "
            "that each order you act on shows this customer (after_sales_get_order), and list their tickets with "
            "after_sales_list_tickets rather than trusting a number you were given."
        )
    speak = f"Speak to the customer in {language}." if language else "Answer in the language the customer writes in."
    return f"""\
You work at the after-sales desk of an online shop: refunds, returns, exchanges and repairs of delivered orders, \
through this server's tools. {speak}

1. Verify who the customer is before acting. {who} Never estimate, open or cancel anything on an order or ticket \
that is not theirs.
2. Look things up instead of guessing. after_sales_find_orders finds a customer's orders, after_sales_get_order \
shows every line with what after-sales allows for it today (and why not), after_sales_list_tickets and \
after_sales_query_ticket show their tickets. Do not ask the customer for line numbers or invent ids.
3. Estimate before creating. For money back, call after_sales_estimate_refund, tell the customer the amount and \
the policy notes, and only when they agree call after_sales_create_ticket with its quote_id. Exchanges and repairs \
go straight to after_sales_create_ticket.
4. Let the server ask the person. It may ask for the refund method or a confirmation mid-call; if the customer \
declines, nothing is created or cancelled: do not retry unless they change their mind.
5. Retry safely. Make one idempotency_key for each ticket or cancellation you intend and reuse exactly that key, \
with the same arguments, on every retry (a timeout, a retryable error). A new key means a new intention.
6. Cancel only on request. When the customer withdraws a ticket, check its stage, confirm with them, and call \
after_sales_cancel_ticket with their own words as the reason.
7. Explain a refusal. Every error says what was wrong, the rule, and what to do next. Tell the customer the rule \
in plain words, as the policy below states it, and offer the alternative the error names (a warranty repair \
instead of a refund, say). Do not retry unchanged, and never promise an exception to the policy.
8. Amounts are integer minor units with a display string; show the display string. Dates are UTC.

The shop's policy, version {version}, follows ({POLICY_URI}). The tools apply exactly this policy."""


def register(server: MCPServer, app: App) -> None:
    """Add the prompt to `server`."""
    policy = policy_for(app.settings)

    @server.prompt(
        name=NAME,
        title="After-sales desk agent",
        description="Instructions for an agent at this after-sales desk (verify the customer, look up before acting, "
        "estimate before creating, retry with the same key, explain refusals), followed by the shop's policy.",
    )
    def after_sales_agent(
        customer_id: Annotated[
            str | None,
            Field(description="The customer's number (C-00042) when the host already knows who is asking."),
        ] = None,
        language: Annotated[
            str | None, Field(description="The language to speak to the customer in (English, 中文, de-CH).")
        ] = None,
    ) -> list[Message]:
        try:
            check_argument("customer_id", customer_id, CUSTOMER_ID_PATTERN, "a customer number such as C-00042")
            check_argument("language", language, LANGUAGE_PATTERN, "2 to 40 characters on one line, such as English")
        except AfterSalesError as error:
            raise protocol_error(error) from None
        text = instructions(customer_id, language, policy.version)
        document = TextResourceContents(uri=POLICY_URI, mime_type="text/markdown", text=policy.markdown)
        return [UserMessage(text), UserMessage(EmbeddedResource(type="resource", resource=document))]


def check_argument(name: str, value: str | None, pattern: str, shape: str) -> None:
    """Refuse, in three parts, an argument given but not of the shape it must have."""
    if value is None or re.fullmatch(pattern, value):
        return
    raise AfterSalesError(
        f"The {NAME} prompt's argument {name} was {value!r}.",
        f"{name} must be {shape}, or left out.",
        f"Get the prompt again with a corrected {name}, or without it.",
    )

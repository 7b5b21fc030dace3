"""Input field types shared by the tools: one pattern, description and example each.

Each type enforces what its published schema states, so the SDK's validation refuses exactly what the schema does.
"""

from enum import StrEnum
from typing import Annotated, Any

from mcp.shared.inbound import X_MCP_HEADER_KEY
from pydantic import BeforeValidator, Field, TypeAdapter, WithJsonSchema

from aftersales.domain.enums import Channel, ReasonCode, RefundMethod, TicketKind, values
from aftersales.domain.paging import CURSOR_PATTERN, DEFAULT_LIMIT, MAX_LIMIT
from aftersales.domain.tickets import TICKET_NUMBER_PATTERN
from aftersales.security.cursors import CURSOR_EXAMPLE

TICKET_ID_PATTERN = TICKET_NUMBER_PATTERN  # what domain.tickets.ticket_number writes
ORDER_ID_PATTERN = r"^O-\d{4}-\d{6}$"
UUID_PATTERN = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"

TicketId = Annotated[
    str,
    Field(
        pattern=TICKET_ID_PATTERN,
        description=(
            "The ticket number, T-YYYY-NNNN: the year it was opened and a sequence of 4 or more digits, "
            "as shown in the customer's confirmation message."
        ),
        examples=["T-2026-0042"],
    ),
]

OrderId = Annotated[
    str,
    Field(
        pattern=ORDER_ID_PATTERN,
        description="The order number, O-YYYY-NNNNNN, from the customer's order confirmation.",
        examples=["O-2026-001423"],
    ),
]


def _json_integer(value: Any) -> Any:
    """Refuse what JSON Schema's "integer" refuses but pydantic's lax int would take: true, false and "12"."""
    if isinstance(value, bool | str):
        raise ValueError("expected a JSON integer")
    return value


# An integer as JSON Schema means it: 1 and 1.0, never true or "1". The check comes after the bounds in each
# Annotated so pydantic still publishes them as minimum and maximum.
JSON_INTEGER = BeforeValidator(_json_integer)
LineNo = Annotated[
    int,
    Field(ge=1, le=999, description="The line of the order the item is on, counting from 1.", examples=[1]),
    JSON_INTEGER,
]
Quantity = Annotated[
    int,
    Field(
        ge=1, le=999, description="How many units of the line; at most what was bought. Defaults to 1.", examples=[1]
    ),
    JSON_INTEGER,
]


def enum_field(enum: type[StrEnum], description: str, example: str) -> Any:
    """An enum input whose schema is inline (no $ref), with its description and an example."""
    schema = {"type": "string", "enum": values(enum), "description": description, "examples": [example]}
    return Annotated[enum, WithJsonSchema(schema), Field(description=description, examples=[example])]


Reason = enum_field(
    ReasonCode,
    "Why the customer wants after-sales service. damaged, defective, wrong_item, not_as_described, missing_parts "
    "and late_delivery are the shop's fault (shipping refunded, no restocking fee); no_longer_needed and other are "
    "not.",
    "defective",
)


def optional_field(python_type: Any, description: str, example: str) -> Any:
    """An optional input (null or omitted) whose non-null form is `python_type`, its constraints enforced.

    The published schema is derived from the same type, inline (no $ref), so the two cannot drift apart; the
    field's own description stands for the type's.
    """
    derived = TypeAdapter(python_type).json_schema().items()
    schema = {key: value for key, value in derived if key not in ("title", "description")}
    wire = {"anyOf": [schema, {"type": "null"}], "default": None, "description": description, "examples": [example]}
    return Annotated[python_type | None, WithJsonSchema(wire), Field(description=description, examples=[example])]


Kind = enum_field(
    TicketKind,
    "What the customer wants: refund_only (money back, item kept), return_and_refund (send it back, money back), "
    "exchange (send it back, get the same item again) or repair (warranty repair).",
    "return_and_refund",
)
Description = Annotated[
    str,
    Field(
        min_length=5,
        max_length=500,
        description="The customer's own words about the problem, 5 to 500 characters.",
        examples=["The screen flickers and goes black after ten minutes."],
    ),
]
CancelReason = Annotated[
    str,
    Field(
        min_length=5,
        max_length=500,
        description="Why the customer withdraws the ticket, in their own words, 5 to 500 characters; the ticket's "
        "timeline keeps them.",
        examples=["I found the same headphones cheaper and will keep the ones I have."],
    ),
]
IDEMPOTENCY_KEY_PATTERN = r"^[A-Za-z0-9_-]{8,64}$"
IdempotencyKey = Annotated[
    str,
    Field(
        pattern=IDEMPOTENCY_KEY_PATTERN,
        description=(
            "Make one per intended ticket, for example a UUID, and send exactly the same value on every retry of "
            "that request (8 to 64 characters of letters, digits, _ and -). A retry with the same key never creates "
            "a second ticket."
        ),
        examples=["7d0c5a52-2f7e-4a53-9a43-1b2f0e7c9d11"],
    ),
]
CancelKey = Annotated[
    str,
    Field(
        pattern=IDEMPOTENCY_KEY_PATTERN,
        description=(
            "Make one per intended cancellation, for example a UUID, and send exactly the same value on every retry "
            "of that request (8 to 64 characters of letters, digits, _ and -). A retry with the same key never "
            "cancels twice."
        ),
        examples=["c4f1e9a0-5b2d-4c8e-9f3a-7e6d5c4b3a21"],
    ),
]
OptionalRefundMethod = optional_field(
    RefundMethod,
    "Where the money goes, for refund kinds only: original_payment or store_credit; for cash-on-delivery orders "
    "bank_transfer or store_credit (the server then asks the customer for the account on the shop's own page: never "
    "ask for it yourself). Omit it to let the server ask the customer; never send it for exchange or repair.",
    "original_payment",
)
OptionalQuoteId = optional_field(
    Annotated[str, Field(pattern=UUID_PATTERN)],
    "quote_id from after_sales_estimate_refund, to lock the refund to that estimate. It must be unexpired, yours, "
    "and for the same order, line, quantity and reason.",
    "6f1c2a9e-4b7d-4e0a-9c3f-2d5e8a1b7c40",
)


def _not_null(value: Any) -> Any:
    """Refuse an explicit null where the schema states a plain string: omitted is how such a field says unknown."""
    if value is None:
        raise ValueError("expected a string")
    return value


# The HTTP header a 2026-07-28 client mirrors `channel` into (Mcp-Param-Channel), so a gateway routes without reading
# bodies. Only what the seeds call routable is annotated, never anything personal (a test holds every schema to it):
# header values are seen by every proxy, balancer and log on the way.
CHANNEL_HEADER = "Channel"
_CHANNEL = (
    "Where the customer is talking to the shop: app, web or miniprogram. Optional: leave it empty (omit it) when "
    "unknown; never guess."
)
# A plain string property, not anyOf with null: the SDK takes x-mcp-header only on a property typed string, integer
# or boolean, and drops a tool whose annotation is anywhere else. Unknown is omitted, so null is refused.
OptionalChannel = Annotated[
    Channel | None,
    BeforeValidator(_not_null),
    WithJsonSchema(
        {
            "type": "string",
            "enum": values(Channel),
            "description": _CHANNEL,
            "examples": ["app"],
            X_MCP_HEADER_KEY: CHANNEL_HEADER,
        }
    ),
    Field(description=_CHANNEL, examples=["app"]),
]

# The lookups: exactly one of email, phone and customer_id (or customer_id and order_id) is given, which no schema
# keyword states here (every field's example must make one valid call); domain.lookups refuses the rest.
EMAIL_PATTERN = r"^[^@\s]+@[^@\s]+\.[^@\s]+$"
PHONE_PATTERN = r"^\+?[0-9][0-9 ().-]{5,23}$"
CUSTOMER_ID_PATTERN = r"^C-\d{5,}$"

OptionalEmail = optional_field(
    Annotated[str, Field(pattern=EMAIL_PATTERN, max_length=200)],
    "The email address on the customer's account, as they say it (case does not matter). Give exactly one of "
    "email, phone and customer_id.",
    "qiang.guo.1@example.com",
)
OptionalPhone = optional_field(
    Annotated[str, Field(pattern=PHONE_PATTERN)],
    "The mobile number on the customer's account: a mainland China number of 11 digits starting with 1; spaces, "
    "hyphens and brackets are ignored and +86, 0086 or 86 in front is optional. Give exactly one of email, phone "
    "and customer_id.",
    "+86 134 6829 4670",
)
OptionalCustomerId = optional_field(
    Annotated[str, Field(pattern=CUSTOMER_ID_PATTERN)],
    "The customer's id, C- and 5 or more digits, as an earlier result showed it (orders carry their customer_id).",
    "C-00001",
)
OptionalOrderId = optional_field(
    Annotated[str, Field(pattern=ORDER_ID_PATTERN)],
    "The order number, O-YYYY-NNNNNN, from the customer's order confirmation or after_sales_find_orders.",
    "O-2026-001423",
)
Limit = Annotated[
    int,
    Field(
        ge=1,
        le=MAX_LIMIT,
        description=f"How many to return on this page, 1 to {MAX_LIMIT}. Defaults to {DEFAULT_LIMIT}.",
        examples=[DEFAULT_LIMIT],
    ),
    JSON_INTEGER,
]
OptionalCursor = optional_field(
    Annotated[str, Field(pattern=CURSOR_PATTERN)],
    "next_cursor from the previous page of the same search, unchanged, to get the next page; omit it for the "
    "first page.",
    CURSOR_EXAMPLE,
)

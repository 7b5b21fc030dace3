"""Input field types shared by the tools: one pattern, description and example each."""

from enum import StrEnum
from typing import Annotated, Any

from pydantic import Field, WithJsonSchema

from aftersales.domain.enums import ReasonCode, values

TICKET_ID_PATTERN = r"^T-\d{4}-\d{4,}$"
ORDER_ID_PATTERN = r"^O-\d{4}-\d{6}$"

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
LineNo = Annotated[
    int,
    Field(ge=1, le=999, description="The line of the order the item is on, counting from 1.", examples=[1]),
]
Quantity = Annotated[
    int,
    Field(
        ge=1, le=999, description="How many units of the line; at most what was bought. Defaults to 1.", examples=[1]
    ),
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

"""Input field types shared by the tools: one pattern, description and example each."""

from typing import Annotated

from pydantic import Field

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

"""The forms a person fills in mid-call (elicitation): flat, titled, readable."""

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field, WithJsonSchema

METHOD_TITLES = {
    "original_payment": "Back to the card or wallet used to pay",
    "store_credit": "Store credit, usable right away",
}


class RefundMethodForm(BaseModel):
    """Where the refund should go."""

    refund_method: Annotated[
        Literal["original_payment", "store_credit"],
        WithJsonSchema(
            {
                "type": "string",
                "title": "Refund to",
                "description": "Where the customer wants the money to go.",
                "oneOf": [{"const": value, "title": title} for value, title in METHOD_TITLES.items()],
            }
        ),
    ]


class ConfirmForm(BaseModel):
    """A person's confirmation of a large refund."""

    confirm: bool = Field(title="Open this refund ticket", description="Tick to confirm the refund shown above.")


def can_elicit(ctx: Context) -> bool:
    """Whether this client can show a form (a bare elicitation capability counts, URL-only does not)."""
    capabilities = ctx.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)

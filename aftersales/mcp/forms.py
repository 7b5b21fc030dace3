"""The forms a person fills in mid-call (elicitation): flat, titled, readable."""

from collections.abc import Callable
from typing import Annotated, Literal, TypeVar

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field, WithJsonSchema

Resolver = TypeVar("Resolver", bound=Callable[..., object])

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


class CancelConfirmForm(BaseModel):
    """A person's confirmation that a ticket is to be cancelled."""

    confirm: bool = Field(title="Cancel this ticket", description="Tick to withdraw the ticket shown above.")


def can_elicit(ctx: Context) -> bool:
    """Whether this client can show a form (a bare elicitation capability counts, URL-only does not)."""
    capabilities = ctx.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def question(tool: str, name: str) -> Callable[[Resolver], Resolver]:
    """Name a resolver's question on the wire as `tool:name` (the inputRequests key a client sees).

    The SDK keys each question by its resolver's `module:qualname`, which for a resolver defined inside a tool's
    register() reads `aftersales.mcp.tools.create_ticket:register.<locals>.ask_method`; a stable, readable name
    also keeps requestState valid across a refactor that moves the function.
    """

    def name_it(resolver: Resolver) -> Resolver:
        resolver.__module__, resolver.__qualname__ = tool, name
        return resolver

    return name_it

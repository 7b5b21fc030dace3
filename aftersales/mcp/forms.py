"""The forms a person fills in mid-call (elicitation): flat, titled, readable."""

import json
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import Context
from mcp_types import ClientCapabilities
from pydantic import BaseModel, Field, WithJsonSchema

Resolver = TypeVar("Resolver", bound=Callable[..., object])
_SCHEMAS: dict[tuple[Any, ...], str] = {}  # a form's JSON Schema by class and arguments, as JSON text

METHOD_TITLES = {
    "original_payment": "Back to the card or wallet used to pay",
    "store_credit": "Store credit, usable right away",
}


class Form(BaseModel):
    """A form whose JSON Schema is generated once per way of asking for it, not on every round."""

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Pydantic's JSON Schema of the form, generated on the first call with these arguments."""
        # The SDK renders a question's schema each time a resolver asks it (in both rounds of a call, to compare
        # the question with the one answered), and generating it costs more than the rest of the question. Kept
        # as JSON text, so every caller gets a copy of its own to change as it likes.
        key = (cls, args, tuple(sorted(kwargs.items())))
        cached = _SCHEMAS.get(key)
        if cached is None:
            cached = _SCHEMAS[key] = json.dumps(super().model_json_schema(*args, **kwargs))
        schema: dict[str, Any] = json.loads(cached)
        return schema


class RefundMethodForm(Form):
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


class ConfirmForm(Form):
    """A person's confirmation of a large refund."""

    confirm: bool = Field(title="Open this refund ticket", description="Tick to confirm the refund shown above.")


class CancelConfirmForm(Form):
    """A person's confirmation that a ticket is to be cancelled."""

    confirm: bool = Field(title="Cancel this ticket", description="Tick to withdraw the ticket shown above.")


def can_elicit(ctx: Context) -> bool:
    """Whether this client can show a form (a bare elicitation capability counts, URL-only does not)."""
    return shows_forms(ctx.client_capabilities)


def shows_forms(capabilities: ClientCapabilities | None) -> bool:
    """Whether a client with these capabilities can show a form: the one test the tools and the trace share."""
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

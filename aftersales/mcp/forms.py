"""The forms a person fills in mid-call (elicitation): flat, titled, readable; and who answers them.

Normally the client answers (a person, or an elicitation callback). A context may instead name a `FormAnswerer`, a
scripted customer for a test world: every question is then answered server-side from its script, on both protocol
revisions and whether or not the client can show forms, and the tool sees the answer as if a person had given it.
"""

import functools
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Annotated, Any, Literal, Protocol, TypeVar, cast

from mcp.server.elicitation import render_elicitation_schema
from mcp.server.mcpserver import Context, Elicit
from mcp.server.mcpserver.resolve import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    ElicitationResult,
)
from pydantic import BaseModel, Field, WithJsonSchema

Resolver = TypeVar("Resolver", bound=Callable[..., object])
Form = TypeVar("Form", bound=BaseModel)


class FormAnswerer(Protocol):
    """Answers a question instead of the client: (action, content) for the question key, message and schema."""

    def answer(self, key: str, message: str, schema: Mapping[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """accept with content, decline or cancel."""
        ...


_answerer: ContextVar[FormAnswerer | None] = ContextVar("aftersales_form_answerer", default=None)


@contextmanager
def answered_by(answerer: FormAnswerer | None) -> Iterator[None]:
    """Questions asked in the enclosed code (and the tool threads it starts) go to `answerer`, not the client."""
    token = _answerer.set(answerer)
    try:
        yield
    finally:
        _answerer.reset(token)


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
    """Whether a form can be shown: a scripted customer answers, or the client can show one (URL-only cannot)."""
    if _answerer.get() is not None:
        return True
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
        @functools.wraps(resolver)
        def asking(*args: Any, **kwargs: Any) -> object:
            asked = resolver(*args, **kwargs)
            answerer = _answerer.get()
            if answerer is None or not isinstance(asked, Elicit):
                return asked
            return _scripted(answerer, f"{tool}:{name}", asked)

        asking.__module__, asking.__qualname__ = tool, name
        return cast(Resolver, asking)

    return name_it


def _scripted(answerer: FormAnswerer, key: str, asked: Elicit[Any]) -> object:
    """The scripted customer's answer, as the value the resolver resolves to (see `outcome`)."""
    action, content = answerer.answer(key, asked.message, render_elicitation_schema(asked.schema))
    if action == "accept":
        return asked.schema.model_validate(content or {})
    return DeclinedElicitation() if action == "decline" else CancelledElicitation()


def outcome(answer: ElicitationResult[Form]) -> ElicitationResult[Form]:
    """A question's outcome however it was answered.

    The SDK wraps whatever a resolver returns without asking as accepted, so a scripted customer's decline arrives
    as an accepted answer holding the decline; this unwraps it.
    """
    if isinstance(answer, AcceptedElicitation) and isinstance(answer.data, DeclinedElicitation | CancelledElicitation):
        return answer.data
    return answer

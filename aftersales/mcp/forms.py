"""The forms a person fills in mid-call (elicitation): flat, titled, readable, and answered only as they ask."""

import json
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.elicitation import render_elicitation_schema
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ClientCapabilities
from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, model_validator

from aftersales.mcp.problems import AnchoredValidator, describe_problems

Resolver = TypeVar("Resolver", bound=Callable[..., object])
_SCHEMAS: dict[tuple[Any, ...], str] = {}  # a form's JSON Schema by class and arguments, as JSON text
_ANSWER_CHECKS: dict[type["Form"], Any] = {}  # the compiled check of a form's answers, by form

METHOD_TITLES = {
    "original_payment": "Back to the card or wallet used to pay",
    "store_credit": "Store credit, usable right away",
    "bank_transfer": "Bank transfer, to an account given on the shop's own page",
}


class AnswerRefused(ToolError):
    """An answer that does not fit the form that was asked: the call ends as a tool error naming each field.

    A ToolError, so the SDK's resolver machinery, which turns only pydantic's own errors into its generic words, lets
    it through on both revisions; the argument gate puts the tool's name in front (see arguments.rewrite_sdk_error).
    """

    LEAD = "The answer given in the form does not fit the form that was asked"

    def __init__(self, problems: list[str]) -> None:
        listed = " ".join(f"({n}) {problem}" for n, problem in enumerate(problems, start=1))
        super().__init__(
            f"{self.LEAD}: {listed} An answer must give every field the form requires, each exactly as the form's "
            "schema types it (true or false for a tick box, never text or a number; one of the listed values for a "
            "choice), and no field the form does not have. Nothing was changed. Call the tool again with the same "
            "arguments so the person is asked again; if this client fills in forms itself, answer in the form's types."
        )


class Form(BaseModel):
    """A form whose JSON Schema is generated once per way of asking for it, and whose answers must fit that schema."""

    # Defence in depth behind the schema check below: no lax reading of a field even where a field's published
    # schema is written by hand (WithJsonSchema) rather than derived from its type.
    model_config = ConfigDict(strict=True)

    @model_validator(mode="before")
    @classmethod
    def _answered_as_asked(cls, answer: Any) -> Any:
        """Refuse an answer that breaks the JSON Schema the client was shown, before pydantic reads it.

        Every answer reaches a form through its validation (2026-07-28 inputResponses, a round restored from
        requestState, a 2025-11-25 elicitation/create result), so this is the one check they all pass. Read laxly,
        "yes", 1 or "on" would be a tick and unknown fields would be dropped; a form answer is attacker input.
        """
        if isinstance(answer, Form):
            return answer
        if problems := describe_problems(_answer_check(cls), answer, outside="a field of this form"):
            raise AnswerRefused(problems)
        return answer

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


def _answer_check(form: type[Form]) -> Any:
    """The validator of `form`'s answers: the schema the SDK renders for the client, closed to other fields."""
    check = _ANSWER_CHECKS.get(form)
    if check is None:
        # The rendered schema lists every field a form has; an answer naming another is not an answer to it.
        check = _ANSWER_CHECKS[form] = AnchoredValidator(
            {**render_elicitation_schema(form), "additionalProperties": False}
        )
    return check


def _method_field(*choices: str) -> Any:
    """A refund-method choice of `choices`, titled for the person."""
    return Annotated[
        Literal[choices],
        WithJsonSchema(
            {
                "type": "string",
                "title": "Refund to",
                "description": "Where the customer wants the money to go.",
                "oneOf": [{"const": value, "title": METHOD_TITLES[value]} for value in choices],
            }
        ),
    ]


class RefundMethodForm(Form):
    """Where the refund should go."""

    refund_method: _method_field("original_payment", "store_credit")  # type: ignore[valid-type]


class CashRefundMethodForm(Form):
    """Where the refund of a cash-on-delivery order should go."""

    refund_method: _method_field("bank_transfer", "store_credit")  # type: ignore[valid-type]


class CreditOnlyMethodForm(Form):
    """The one way a cash-on-delivery refund can go when the client cannot open the shop's bank-account page."""

    refund_method: _method_field("store_credit")  # type: ignore[valid-type]


def method_form(allowed: list[str], opens_urls: bool) -> type[Form]:
    """The refund-method form for these allowed methods; bank_transfer only where the client can open its page."""
    if "bank_transfer" not in allowed:
        return RefundMethodForm
    return CashRefundMethodForm if opens_urls else CreditOnlyMethodForm


class ConfirmForm(Form):
    """A person's confirmation of a large refund."""

    confirm: bool = Field(title="Open this refund ticket", description="Tick to confirm the refund shown above.")


class CancelConfirmForm(Form):
    """A person's confirmation that a ticket is to be cancelled."""

    confirm: bool = Field(title="Cancel this ticket", description="Tick to withdraw the ticket shown above.")


def can_elicit(ctx: Context) -> bool:
    """Whether this client can show a form (a bare elicitation capability counts, URL-only does not)."""
    return shows_forms(ctx.client_capabilities)


def can_open_urls(ctx: Context) -> bool:
    """Whether this client declared URL-mode elicitation (it can send the person to a page of this server)."""
    capabilities = ctx.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and elicitation.url is not None


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

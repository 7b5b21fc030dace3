"""The task's customer answering forms: server-side in a world (a FormAnswerer), or as an SDK client's callback."""

from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import Any

from mcp_types import ElicitRequestFormParams, ElicitResult

from aftersales.testing.tasks import Customer, FormAnswer

# The rounds of the call being traced: the recorder sets a fresh list per call, the customer appends to it.
current_rounds: ContextVar[list[dict[str, Any]] | None] = ContextVar("aftersales_trace_rounds", default=None)
UNSCRIPTED = FormAnswer(action="cancel")  # a question the task did not foresee: the customer closes the form


def answer_for(customer: Customer, key: str) -> FormAnswer:
    """How the customer answers the question `key` (tool:name)."""
    return customer.forms.get(key, UNSCRIPTED)


class ScriptedCustomer:
    """A FormAnswerer (aftersales.mcp.forms) that answers from the task and records each round in the trace."""

    def __init__(self, customer: Customer) -> None:
        self.customer = customer

    def answer(self, key: str, message: str, schema: Mapping[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """The scripted answer, recorded as a round answered by the scripted customer."""
        given = answer_for(self.customer, key)
        rounds = current_rounds.get()
        if rounds is not None:
            rounds.append(
                {
                    "questions": {key: {"message": message, "schema": dict(schema)}},
                    "answers": {key: given.model_dump(exclude_none=True)},
                    "answered_by": "scripted_customer",
                }
            )
        return given.action, dict(given.content) if given.content is not None else None


Callback = Callable[[Any, ElicitRequestFormParams], Any]


def elicitation_callback(customer: Customer, seen: list[str] | None = None) -> Callback:
    """An MCP SDK elicitation callback that answers as the customer would.

    A 2025-11-25 `elicitation/create` carries no question key, so the form is recognised by its fields: the key
    whose scripted content has exactly the fields the form asks for; a form with no such key is cancelled.
    """

    async def callback(_context: Any, params: ElicitRequestFormParams) -> ElicitResult:
        fields = set((params.requested_schema or {}).get("properties", {}))
        given = next(
            (answer for answer in customer.forms.values() if answer.content and set(answer.content) == fields),
            _by_field_name(customer, fields),
        )
        if seen is not None:
            seen.append(params.message)
        return ElicitResult(action=given.action, content=dict(given.content) if given.content else None)

    return callback


def _by_field_name(customer: Customer, fields: set[str]) -> FormAnswer:
    """A decline or cancel scripted for the question named like the form's one field (…:refund_method, …:confirm)."""
    for key, answer in customer.forms.items():
        if key.rpartition(":")[2] in fields:
            return answer
    return UNSCRIPTED

"""The task's customer answering forms: for the world itself (worlds' FormAnswerer seam), or as an SDK callback.

A question is found in the customer's script by its key (`after_sales_create_ticket:refund_method`). A 2025-11-25
`elicitation/create` carries no key, so there the form is recognised by its fields: the scripted answer whose
content has exactly those fields, else the one whose key names the form's one field. A question the task did not
foresee is cancelled, as a person would close a form they did not expect.
"""

from collections.abc import Mapping
from typing import Any

from mcp.client.session import ClientRequestContext, ElicitationFnT
from mcp_types import ElicitRequestFormParams, ElicitRequestParams, ElicitResult, ErrorData

from aftersales.testing.tasks import Customer, FormAnswer

UNSCRIPTED = FormAnswer(action="cancel")


def answer_for(customer: Customer, key: str | None, fields: set[str]) -> FormAnswer:
    """How the customer answers a question, by its key or, without one, by the fields of its form."""
    if key:
        return customer.forms.get(key, UNSCRIPTED)
    for answer in customer.forms.values():
        if answer.content and set(answer.content) == fields:
            return answer
    for named, answer in customer.forms.items():
        if named.rpartition(":")[2] in fields:
            return answer
    return UNSCRIPTED


def answer_question(customer: Customer, question: Mapping[str, Any]) -> dict[str, Any]:
    """The answer to a question as the worlds tracer hands it over ({key, message, requested_schema})."""
    fields = set((question.get("requested_schema") or {}).get("properties", {}))
    given = answer_for(customer, question.get("key"), fields)
    return {"action": given.action, "content": dict(given.content) if given.content is not None else None}


Callback = ElicitationFnT


def elicitation_callback(customer: Customer) -> Callback:
    """An MCP SDK elicitation callback that answers as the customer would (the client answers, not the world)."""

    async def callback(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult | ErrorData:
        if not isinstance(params, ElicitRequestFormParams):
            return ElicitResult(action="cancel")  # a URL form is never part of a task's script
        fields = set((params.requested_schema or {}).get("properties", {}))
        given = answer_for(customer, None, fields)
        return ElicitResult(action=given.action, content=dict(given.content) if given.content else None)

    return callback

"""The MCP client's answers to the server's forms, when the world leaves them to the client (brief forms=client).

A form is the person's own answer in their client, not a chat message: the brief says how this customer answers
each (a brief's customer.forms, a conversation brief's form_answers), by question key. On 2026-07-28 a question
comes with its key (the input request's key, which the SDK hands on as the request id); a 2025-11-25
`elicitation/create` has none, so it is recognised by its fields (aftersales.testing.customer.form_answer).
"""

from collections.abc import Mapping
from typing import Any

from fastmcp.client.elicitation import ElicitationHandler, ElicitResult
from mcp.client.session import ClientRequestContext
from mcp_types import ElicitRequestFormParams, ElicitRequestParams

from aftersales.testing.customer import form_answer
from aftersales.testing.tasks import FormAnswer

KEYED = ("2026-07-28",)  # the revisions whose questions carry their key


def answering(forms: Mapping[str, FormAnswer]) -> ElicitationHandler[Any, Any]:
    """A fastmcp elicitation handler that answers as the customer of `forms` would; an unforeseen form is cancelled."""

    async def handler(
        message: str, response_type: type[Any] | None, params: ElicitRequestParams, context: Any
    ) -> ElicitResult[dict[str, Any]]:
        if not isinstance(params, ElicitRequestFormParams):
            return ElicitResult(action="cancel")  # a URL form (a bank account) is never part of a brief
        fields = set((params.requested_schema or {}).get("properties", {}))
        given = form_answer(forms, _key(context), fields)
        return ElicitResult(action=given.action, content=dict(given.content) if given.content else None)

    return handler


def _key(context: ClientRequestContext) -> str | None:
    """The question's key, on a revision that sends one."""
    keyed = context.session.protocol_version in KEYED and isinstance(context.request_id, str)
    return str(context.request_id) if keyed else None

"""The task's customer answering forms: for the world itself (worlds' FormAnswerer seam), or as an SDK callback.

A question is found in the customer's script by its key (`after_sales_create_ticket:refund_method`). A 2025-11-25
`elicitation/create` carries no key, so there the form is recognised by its fields: the scripted answer whose
content has exactly those fields, else the one whose key names the form's one field. A question the task did not
foresee is cancelled, as a person would close a form they did not expect. A URL question (the bank-account page) is
found by its key, which on 2025-11-25 is the one URL question this server asks; the world answers it on the page
itself (testing/pages.py), and a brief shows only the action (`for_brief`), never what the customer types there.

A customer who changes their mind in a conversation (`changes_mind`) is answered for as `following(customer, ...)`:
the conversation's engine hands that customer on (ScriptedCustomer's `on_change`), and the host answers the world's
forms with it from then on (`TrialHost.answer_forms`). Its refund-method form gives the new method, and a
confirmation that names the method they gave up is declined. A brief-mode brief shows the customer `settled`.
"""

from collections.abc import Mapping
from typing import Any

from mcp.client.session import ClientRequestContext, ElicitationFnT
from mcp_types import ElicitRequestFormParams, ElicitRequestParams, ElicitResult, ErrorData

from aftersales.domain.creation import REFUND_WHERE
from aftersales.mcp.url_questions import ACCOUNT_QUESTION
from aftersales.testing.tasks import Customer, FormAnswer, Scalar, Wants

UNSCRIPTED = FormAnswer(action="cancel")


def answer_for(customer: Customer, key: str | None, fields: set[str]) -> FormAnswer:
    """How the customer answers a question, by its key or, without one, by the fields of its form."""
    return form_answer(customer.forms, key, fields)


def form_answer(forms: Mapping[str, FormAnswer], key: str | None, fields: set[str]) -> FormAnswer:
    """The answer to a question among `forms` (a brief's form answers, by key): by its key, else by its fields."""
    if key:
        return forms.get(key, UNSCRIPTED)
    for answer in forms.values():
        if answer.content and set(answer.content) == fields:
            return answer
    for named, answer in forms.items():
        if named.rpartition(":")[2] in fields:
            return answer
    return UNSCRIPTED


def url_answer(customer: Customer, key: str | None) -> FormAnswer:
    """How the customer answers a URL question: by its key, or without one (2025-11-25) the bank-account page's."""
    return customer.forms.get(key or ACCOUNT_QUESTION, UNSCRIPTED)


def for_brief(forms: Mapping[str, FormAnswer]) -> dict[str, FormAnswer]:
    """Form answers as a brief shows them: what the customer types on a page stays out (an agent never reads it)."""
    return {key: answer.model_copy(update={"page": None}) for key, answer in forms.items()}


def following(customer: Customer, choices: Mapping[str, Scalar]) -> Customer:
    """The customer after changing their mind: `choices` (wants fields) in their wants and in their form answers."""
    wants = Wants.model_validate(customer.wants.model_dump() | dict(choices))
    forms = {
        key: answer.model_copy(
            update={"content": {name: choices.get(name, value) for name, value in answer.content.items()}}
        )
        if answer.content
        else answer
        for key, answer in customer.forms.items()
    }
    return customer.model_copy(update={"wants": wants, "forms": forms})


def settled(customer: Customer) -> Customer:
    """The customer as a conversation leaves them, for a brief-mode trial: every change of mind made, none to come."""
    changed = following(customer, {str(field): value for field, value in customer.changes_mind.items()})
    return changed.model_copy(update={"mistakes": {}, "changes_mind": {}, "stops_after": None})


def answer_question(customer: Customer, question: Mapping[str, Any]) -> dict[str, Any]:
    """The answer to a question as the worlds tracer hands it over ({key, message, requested_schema})."""
    fields = set((question.get("requested_schema") or {}).get("properties", {}))
    given = answer_for(customer, question.get("key"), fields)
    if _gives_up_choice(customer, question, fields):
        given = FormAnswer(action="decline")
    return {"action": given.action, "content": dict(given.content) if given.content is not None else None}


def _gives_up_choice(customer: Customer, question: Mapping[str, Any], fields: set[str]) -> bool:
    """Whether a confirmation names the refund method a customer changed their mind away from."""
    changed = customer.changes_mind.get("refund_method")
    confirming = str(question.get("key") or "").endswith(":confirm") or fields == {"confirm"}
    if not confirming or changed is None or customer.wants.refund_method != changed:
        return False  # not a confirmation, or they have not changed their mind (yet)
    message = str(question.get("message") or "")
    return any(words in message for method, words in REFUND_WHERE.items() if method != changed)


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

"""Scripted people for elicitation tests: they answer forms the way a test says, and remember what they saw."""

from dataclasses import dataclass, field
from typing import Any, Literal

from mcp_types import ElicitRequestFormParams, ElicitResult

Action = Literal["accept", "decline", "cancel"]  # what a person does with a form (ElicitResult.action)
Content = dict[str, str | int | float | bool | list[str] | None]  # what an accepted form sends (ElicitResult.content)


@dataclass
class Person:
    """An elicitation callback: accepts, declines or cancels, choosing a method and a confirmation."""

    action: Action = "accept"
    method: str = "store_credit"
    confirm: bool = True
    # The content sent as is for a form, by the field the form asks (a mistyped answer, say), instead of the above.
    typed: dict[str, Content] = field(default_factory=dict)
    seen: list[ElicitRequestFormParams] = field(default_factory=list)

    async def __call__(self, _context: Any, params: ElicitRequestFormParams) -> ElicitResult:
        self.seen.append(params)
        if self.action != "accept":
            return ElicitResult(action=self.action)
        fields = params.requested_schema["properties"]
        asked = next(iter(fields))
        if asked in self.typed:
            return ElicitResult(action="accept", content=self.typed[asked])
        content: Content = {"refund_method": self.method} if "refund_method" in fields else {"confirm": self.confirm}
        return ElicitResult(action="accept", content=content)

    @property
    def questions(self) -> list[str]:
        """The fields asked, in order (refund_method, confirm)."""
        return [name for params in self.seen for name in params.requested_schema["properties"]]


def answers_for(input_requests: dict[str, Any], method: str = "store_credit", confirm: bool = True) -> dict[str, Any]:
    """Input responses for a round of input_required questions, keyed as the server keyed them."""
    responses = {}
    for key, request in input_requests.items():
        fields = request.params.requested_schema["properties"]
        content: Content = {"refund_method": method} if "refund_method" in fields else {"confirm": confirm}
        responses[key] = ElicitResult(action="accept", content=content)
    return responses


async def second_round(session: Any, tool: str, arguments: dict[str, Any], first: Any, state: str | None = None) -> Any:
    """Retry an input_required call with accepting answers and the round's requestState (or `state` instead)."""
    return await session.call_tool(
        tool,
        arguments,
        input_responses=answers_for(first.input_requests),
        request_state=first.request_state if state is None else state,
        allow_input_required=True,
    )


# Answers that do not fit the form asked, each with the field its refusal must name: text or numbers for a tick box,
# a null, a field left out, a field the form does not have, a choice not offered.
MISTYPED_CONFIRMATIONS = [
    ({"confirm": "yes"}, "confirm"),
    ({"confirm": 1}, "confirm"),
    ({"confirm": "on"}, "confirm"),
    ({"confirm": "true"}, "confirm"),
    ({"confirm": None}, "confirm"),
    ({}, "confirm"),
    ({"confirm": True, "refund_method": "store_credit"}, "refund_method"),
]
MISTYPED_METHODS = [
    ({"refund_method": "cash"}, "refund_method"),
    ({"refund_method": "Store_Credit"}, "refund_method"),
    ({"refund_method": 1}, "refund_method"),
    ({"refund_method": None}, "refund_method"),
    ({"refund_method": "store_credit", "confirm": True}, "confirm"),
]

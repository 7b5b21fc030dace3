"""The bank-account question: URL-mode elicitation, on both revisions, for a refund that goes by bank transfer.

The SDK's resolvers ask forms only, so this question is asked here, from a resolver of the create tool:

- on 2025-11-25 the resolver sends `elicitation/create` with `mode: "url"` mid-call, waits until the page is
  submitted (or expires, or the person closes it), then sends `notifications/elicitation/complete`;
- on 2026-07-28 there is no back-channel: the resolver raises `AccountNeeded`, and `UrlQuestions` (a middleware
  inside the SDK's requestState boundary, which seals the state it returns) answers the round with
  `resultType: "input_required"` whose one question is the URL request. The client retries once the person has
  finished; the retry's answer and the page's state in the database decide.
"""

import json
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, ElicitRequest, ElicitRequestURLParams, InputRequiredResult

from aftersales.mcp.requests import tool_call

ACCOUNT_QUESTION = "after_sales_create_ticket:bank_account"  # the inputRequests key a client sees
STATE_FIELD = "aftersales_payout_page"  # what this question keeps in requestState: the page's id and link


class AccountNeeded(MCPError):
    """Raised by the create tool's resolver on 2026-07-28: answer this round with the page's URL question."""

    def __init__(self, message: str, url: str, request_id: str) -> None:
        super().__init__(INTERNAL_ERROR, "Internal error")  # what the client sees if no middleware answers it
        self.question, self.url, self.request_id = message, url, request_id


def page_in_state(request_state: str | None) -> tuple[str, str] | None:
    """(page id, link) this question put in the round's requestState (already unsealed and checked by the SDK)."""
    if not request_state:
        return None
    try:
        page = json.loads(request_state)[STATE_FIELD]
        return str(page["id"]), str(page["url"])
    except (ValueError, KeyError, TypeError):
        return None


class UrlQuestions:
    """Server middleware: turn `AccountNeeded` into an input_required round whose question is a URL request."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Pass every request through; answer a tools/call that needs the bank-account page with its question."""
        if tool_call(ctx) is None:
            return await call_next(ctx)
        try:
            return await call_next(ctx)
        except AccountNeeded as needed:
            request = ElicitRequest(params=ElicitRequestURLParams(message=needed.question, url=needed.url))
            # The resolvers read this state as "no progress of theirs"; the page in the database holds the rest.
            state = json.dumps({STATE_FIELD: {"id": needed.request_id, "url": needed.url}})
            result = InputRequiredResult(input_requests={ACCOUNT_QUESTION: request}, request_state=state)
            answer: dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
            return answer

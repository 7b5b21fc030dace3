"""after_sales_cancel_ticket: withdraw a ticket at the customer's request, once per idempotency key, confirmed."""

from datetime import timedelta
from typing import Annotated

from mcp.server.mcpserver import Context, Elicit, ElicitationResult, MCPServer, Resolve
from mcp.server.mcpserver.resolve import AcceptedElicitation

from aftersales.app import App
from aftersales.clock import now
from aftersales.domain.callers import WRITE
from aftersales.domain.calls import CANCEL_TICKET
from aftersales.domain.cancellation import CancelRequest, cancellable_stages, confirmation_message
from aftersales.domain.enums import Channel
from aftersales.domain.errors import AfterSalesError
from aftersales.domain.tickets import Confirmation
from aftersales.mcp.caller import authorize
from aftersales.mcp.error_mapping import crash_to_protocol_error, tool_errors
from aftersales.mcp.fields import CancelKey, CancelReason, OptionalChannel, TicketId
from aftersales.mcp.forms import CancelConfirmForm, can_elicit, question
from aftersales.mcp.on_database import on_database
from aftersales.mcp.tools.hints import hints
from aftersales.services import cancellation
from aftersales.services.cancellation import CancelAssessment
from aftersales.services.views import CancelResult

NAME = CANCEL_TICKET
TITLE = "Cancel an after-sales ticket"
REFUSED = {
    "decline": "The customer declined to confirm the cancellation.",
    "cancel": "The customer closed the cancellation question without answering.",
}
# The preflight's answer, or the rule it found broken (a resolver cannot raise a tool error; see create_ticket).
Checked = CancelAssessment | AfterSalesError


def description(kept: timedelta) -> str:
    """The model-facing description, with the stages that allow cancelling and the keys' lifetime."""
    hours = int(kept.total_seconds() // 3600)
    return f"""\
Cancel an after-sales ticket the customer no longer wants: the ticket closes as cancelled and nothing more happens \
with it.

Use it when the customer withdraws a request they made: a ticket can be cancelled only in the \
{cancellable_stages()} stage (nobody has acted on it yet, or the item has not been sent back). Cancelling frees the \
units the ticket held, so the order line can be estimated and ticketed again. Pass the customer's own words as \
reason. Do not use it for a ticket in repair, whose refund is being paid, or that is closed: the server refuses, \
says why, and what to tell the customer instead (do not retry those). Tickets cannot be edited: to change a \
ticket's kind, quantity or refund method, cancel it and open a new one with after_sales_create_ticket, if the \
customer wants that.

Side effects: destructive. The ticket cannot be reopened; its timeline records that you cancelled it for the \
customer, with their words.

The server asks the person to confirm, mid-call. If they decline or close the question, the outcome is \
"not_cancelled" and nothing changes. If this client cannot show forms, confirm with the customer before calling: \
the ticket's timeline records that the confirmation was left to you.

Retries are safe: send one idempotency_key per intended cancellation and reuse it on every retry; the same key \
with the same arguments returns the first result with outcome "replayed" and changes nothing; the same key with \
other arguments is refused. Keys are kept {hours} hours.

Usual sequence: after_sales_list_tickets (when the customer has no ticket number) -> after_sales_query_ticket (is \
it in a stage that can be cancelled?) -> confirm with the customer -> after_sales_cancel_ticket -> tell them it is \
cancelled."""


def register(server: MCPServer, app: App) -> None:
    """Add the tool to `server`."""
    ttl = app.settings.idempotency_ttl

    # Resolvers that only compute are coroutines, so they cost no hop to a worker thread (see create_ticket).
    async def request_of(ticket_id: str, reason: str, idempotency_key: str, channel: Channel | None) -> CancelRequest:
        """The call's arguments as one request (a resolver, so the preflight and the body share it)."""
        return CancelRequest(ticket_id=ticket_id, reason=reason, idempotency_key=idempotency_key, channel=channel)

    @on_database(app.database)
    @crash_to_protocol_error
    def assessment(request: Annotated[CancelRequest, Resolve(request_of)]) -> Checked:
        """Check the caller and the ticket's stage before anyone is asked anything (re-runs every round)."""
        try:
            return cancellation.preflight(app.uow(), authorize(WRITE, NAME), request, now())
        except AfterSalesError as error:
            return error

    @question(NAME, "confirm")
    async def ask_confirmation(
        checked: Annotated[Checked, Resolve(assessment)], ctx: Context
    ) -> Elicit[CancelConfirmForm] | None:
        """Ask a person to confirm the cancellation, when the client can show a form."""
        if not isinstance(checked, CancelAssessment) or checked.ticket is None or not can_elicit(ctx):
            return None
        ticket = checked.ticket
        refund = ticket.refund.display if ticket.refund else None
        message = confirmation_message(ticket.ticket_id, ticket.kind, ticket.item.quantity, ticket.item.name, refund)
        return Elicit(message, CancelConfirmForm)

    @server.tool(
        name=NAME,
        title=TITLE,
        description=description(ttl),
        annotations=hints(TITLE, read_only=False, idempotent=True, destructive=True),
    )
    @on_database(app.database, write=True)
    @tool_errors
    def after_sales_cancel_ticket(
        ticket_id: TicketId,
        reason: CancelReason,
        idempotency_key: CancelKey,
        request: Annotated[CancelRequest, Resolve(request_of)],
        checked: Annotated[Checked, Resolve(assessment)],
        answer: Annotated[ElicitationResult[CancelConfirmForm], Resolve(ask_confirmation)],
        channel: OptionalChannel = None,
    ) -> CancelResult:
        # The plain arguments define the input schema; `request` carries the same values as one object.
        if isinstance(checked, AfterSalesError):
            raise checked  # tool_errors answers it, as it answers every rule this tool breaks
        if checked.replay is not None:
            return checked.replay
        assert checked.ticket is not None  # an assessment without a replay names the ticket
        if not isinstance(answer, AcceptedElicitation):
            return cancellation.not_cancelled(checked.ticket, REFUSED[answer.action])
        confirmation: Confirmation = "host"  # no form could be shown: the host confirmed before calling
        if answer.data is not None:
            if not answer.data.confirm:
                return cancellation.not_cancelled(checked.ticket, "The customer did not confirm the cancellation.")
            confirmation = "person"
        caller = authorize(WRITE, NAME)
        return cancellation.cancel_ticket(app.uow(write=True), caller, request, confirmation, now(), ttl)

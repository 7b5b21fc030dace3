"""after_sales_create_ticket: open a ticket once per idempotency key, asking the person what only they know."""

import functools
from dataclasses import asdict, replace
from typing import Annotated

from mcp.server.mcpserver import Context, Elicit, ElicitationResult, MCPServer, Resolve
from mcp.server.mcpserver.resolve import AcceptedElicitation

from aftersales.app import App
from aftersales.clock import now
from aftersales.domain.callers import WRITE
from aftersales.domain.calls import CREATE_TICKET
from aftersales.domain.creation import TicketRequest, confirmation_message, missing_refund_method
from aftersales.domain.enums import Channel, ReasonCode, RefundMethod, TicketKind
from aftersales.domain.errors import AfterSalesError
from aftersales.domain.money import format_money
from aftersales.mcp.caller import authorize
from aftersales.mcp.error_mapping import crash_to_protocol_error, tool_errors
from aftersales.mcp.fields import (
    Description,
    IdempotencyKey,
    Kind,
    LineNo,
    OptionalChannel,
    OptionalQuoteId,
    OptionalRefundMethod,
    OrderId,
    Quantity,
    Reason,
)
from aftersales.mcp.forms import ConfirmForm, RefundMethodForm, can_elicit, can_open_urls, method_form, question
from aftersales.mcp.on_database import on_database
from aftersales.mcp.tools.bank_account import AccountStep, account_resolver, no_url_mode
from aftersales.mcp.tools.hints import hints
from aftersales.services import creation
from aftersales.services.creation import Assessment, CreationPolicy, Decisions
from aftersales.services.views import CreateResult
from aftersales.settings import Settings

NAME = CREATE_TICKET
REFUSED_METHOD = {
    "decline": "The customer declined to choose a refund method.",
    "cancel": "The customer cancelled the refund-method question without answering.",
}
REFUSED_ACCOUNT = {
    "closed": "The customer closed the shop's bank-account page without giving an account.",
    "expired": "The shop's bank-account page expired before the customer submitted it.",
}
REFUSED_CONFIRMATION = {
    "decline": "The customer declined to confirm the refund.",
    "cancel": "The customer cancelled the refund confirmation without answering.",
}
TITLE = "Open an after-sales ticket"
# The preflight's answer, or the rule it found broken. A resolver cannot raise a tool error (the SDK would word it
# itself), so a broken rule travels to the tool body as a value and is raised there.
Checked = Assessment | AfterSalesError


def description(policy: CreationPolicy) -> str:
    """The model-facing description, with the configured thresholds."""
    confirm = format_money(policy.confirm_above_minor, "CNY")
    review = format_money(policy.review_above_minor, "CNY")
    hours = int(policy.idempotency_ttl.total_seconds() // 3600)
    return f"""\
Open an after-sales ticket for one line of a delivered order: refund_only, return_and_refund, exchange or repair.

Use it once the customer has said what they want and you know the order line; for refunds, call \
after_sales_estimate_refund first and pass its quote_id to lock the amount the customer was told. Do not use it to \
check on an existing ticket (after_sales_query_ticket), and do not open a second ticket for a line that has an \
open one: the server refuses and names the open ticket (if the customer wants that one withdrawn, \
after_sales_cancel_ticket).

Side effects: creates a ticket and starts the shop's after-sales process (not destructive: nothing is deleted or \
paid out immediately). Refunds above {review}, or for customers with {policy.review_recent_tickets}+ tickets in \
{policy.review_window.days} days, start under manual review instead of approved.

Retries are safe: send one idempotency_key per intended ticket and reuse it on every retry; the same key with the \
same arguments returns the first result with outcome "replayed" and creates nothing; the same key with other \
arguments is refused. Keys are kept {hours} hours.

The server may ask the person directly, mid-call: for the refund method when refund_method is omitted, and for a \
confirmation when the refund is above {confirm}. If they decline or cancel, the outcome is "not_created". If this \
client cannot show forms, ask the customer for the refund method and pass refund_method, and confirm refunds above \
{confirm} with them before calling: the ticket's timeline records that the confirmation was left to you.

Usual sequence: after_sales_get_order (which line, which kinds it allows) -> after_sales_estimate_refund -> tell \
the customer -> after_sales_create_ticket -> tell them the ticket number and next step."""


def creation_policy(settings: Settings) -> CreationPolicy:
    """The policy creation applies under `settings`: their thresholds and the lifetimes of quotes and keys."""
    return CreationPolicy(
        quote_ttl=settings.quote_ttl, idempotency_ttl=settings.idempotency_ttl, **asdict(settings.thresholds)
    )


def register(server: MCPServer, app: App) -> None:
    """Add the tool to `server`."""
    policy = creation_policy(app.settings)

    # The resolvers that only compute are coroutines: the SDK runs a plain function on a worker thread, and each
    # hop to a thread and back costs more than the work itself. Only the assessment reads the database, where the
    # database work runs (app.database: the event loop on PostgreSQL, a worker thread on SQLite).
    async def request_of(
        order_id: str,
        line_no: int,
        kind: TicketKind,
        reason_code: ReasonCode,
        description: str,
        idempotency_key: str,
        quantity: int,
        refund_method: RefundMethod | None,
        quote_id: str | None,
        channel: Channel | None,
    ) -> TicketRequest:
        """The call's arguments as one request (a resolver, so the preflight and the body share it)."""
        return TicketRequest(
            order_id=order_id,
            line_no=line_no,
            quantity=quantity,
            kind=kind,
            reason=reason_code,
            description=description,
            refund_method=refund_method,
            quote_id=quote_id,
            idempotency_key=idempotency_key,
            channel=channel,
        )

    @crash_to_protocol_error
    def checked_now(request: TicketRequest) -> Checked:
        """Check the caller and the rules before anyone is asked anything (re-runs every round)."""
        try:
            return creation.preflight(app.uow(), authorize(WRITE, NAME), request, now(), policy)
        except AfterSalesError as error:
            return error

    async def assessment(request: Annotated[TicketRequest, Resolve(request_of)], ctx: Context) -> Checked | None:
        """The preflight, made before the questions only when one could be asked; else None, and the body checks.

        On SQLite each of the two costs a hop to a worker thread and back; a call that can ask nothing (a repair, a
        client without forms) then makes one hop, not two, as the body reads and writes in the same one.
        """
        if not can_elicit(ctx) or not creation.may_ask(request, policy):
            return None
        return await app.database.read(functools.partial(checked_now, request))

    @question(NAME, "refund_method")
    async def ask_method(
        checked: Annotated[Checked | None, Resolve(assessment)], ctx: Context
    ) -> Elicit[RefundMethodForm] | None:
        """Ask where the refund goes, when only the person can say and the client can show a form."""
        if not isinstance(checked, Assessment) or not checked.needs_method or not can_elicit(ctx):
            return None
        assert checked.line is not None
        methods = [method.value for method in checked.allowed_methods]
        return Elicit(
            f"Where should the refund for {checked.line.product_name} (order {checked.line.order_id}) go?",
            method_form(methods, can_open_urls(ctx)),  # type: ignore[arg-type]  # every method form has this field
        )

    @question(NAME, "confirm")
    async def ask_confirmation(
        checked: Annotated[Checked | None, Resolve(assessment)], quantity: int, ctx: Context
    ) -> Elicit[ConfirmForm] | None:
        """Ask a person to confirm a large refund, in the same round as the method question."""
        if not isinstance(checked, Assessment) or not checked.needs_confirmation(policy) or not can_elicit(ctx):
            return None
        assert checked.line is not None and checked.breakdown is not None
        total, line = checked.breakdown.total_minor, checked.line
        return Elicit(
            confirmation_message(line.product_name, quantity, total, line.currency, checked.method), ConfirmForm
        )

    account_step = account_resolver(app, policy, checked_now)

    @question(NAME, "bank_account")
    async def ask_account(
        checked: Annotated[Checked | None, Resolve(assessment)],
        method_answer: Annotated[ElicitationResult[RefundMethodForm], Resolve(ask_method)],
        confirm_answer: Annotated[ElicitationResult[ConfirmForm], Resolve(ask_confirmation)],
        request: Annotated[TicketRequest, Resolve(request_of)],
        ctx: Context,
    ) -> AccountStep | None:
        """The bank account, taken on this server's page (URL mode), for a refund that goes by bank transfer."""
        return await account_step(checked, method_answer, confirm_answer, request, ctx)

    @server.tool(
        name=NAME,
        title=TITLE,
        description=description(policy),
        annotations=hints(TITLE, read_only=False, idempotent=True),
    )
    @on_database(app.database, write=True)
    @tool_errors
    def after_sales_create_ticket(
        order_id: OrderId,
        line_no: LineNo,
        kind: Kind,
        reason_code: Reason,
        description: Description,
        idempotency_key: IdempotencyKey,
        request: Annotated[TicketRequest, Resolve(request_of)],
        early: Annotated[Checked | None, Resolve(assessment)],
        method_answer: Annotated[ElicitationResult[RefundMethodForm], Resolve(ask_method)],
        confirm_answer: Annotated[ElicitationResult[ConfirmForm], Resolve(ask_confirmation)],
        account: Annotated[AccountStep | None, Resolve(ask_account)],
        quantity: Quantity = 1,
        refund_method: OptionalRefundMethod = None,
        quote_id: OptionalQuoteId = None,
        channel: OptionalChannel = None,
    ) -> CreateResult:
        # The plain arguments define the input schema; `request` carries the same values as one object.
        if early is None and not creation.may_ask(request, policy):
            # Nothing for the person to decide, whatever the rules find: the write checks them itself, in one
            # transaction instead of a read and then a write.
            return creation.create_ticket(
                app.uow(write=True), authorize(WRITE, NAME), request, Decisions(), now(), policy
            )
        checked = early if early is not None else checked_now(request)
        if isinstance(checked, AfterSalesError):
            raise checked  # tool_errors answers it, as it answers every rule this tool breaks
        if checked.replay is not None:
            return checked.replay
        decisions = Decisions(method=checked.method, confirmation=checked.confirmed_before)
        if checked.needs_method:
            if not isinstance(method_answer, AcceptedElicitation):
                return creation.not_created(REFUSED_METHOD[method_answer.action])
            if method_answer.data is None:
                raise missing_refund_method(kind, checked.allowed_methods)
            decisions = Decisions(method=RefundMethod(method_answer.data.refund_method))
        if checked.needs_confirmation(policy):
            if not isinstance(confirm_answer, AcceptedElicitation):
                return creation.not_created(REFUSED_CONFIRMATION[confirm_answer.action])
            if confirm_answer.data is None:
                decisions = Decisions(method=decisions.method, confirmation="host")
            elif not confirm_answer.data.confirm:
                return creation.not_created("The customer did not confirm the refund.")
            else:
                decisions = Decisions(method=decisions.method, confirmation="person")
        if (request.refund_method or decisions.method) is RefundMethod.BANK_TRANSFER:
            if account is None or account.refused == "no_url":
                raise no_url_mode(request.order_id)
            if account.payout is None:
                return creation.not_created(REFUSED_ACCOUNT[account.refused or "expired"], creation.ACCOUNT_NEXT)
            decisions = replace(decisions, payout=account.payout)
        caller = authorize(WRITE, NAME)
        return creation.create_ticket(app.uow(write=True), caller, request, decisions, now(), policy, checked)

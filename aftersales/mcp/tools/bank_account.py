"""The create tool's bank-account step: send the person to this server's page, and read what it took.

A resolver after the method and confirmation questions. It asks only for a refund going by bank transfer, and only
a client that declared URL-mode elicitation; the page and the account stay out of the client and the model, which
learn only that the account was received (masked, with a payout reference).
"""

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

import anyio
from mcp.server.mcpserver import Context, ElicitationResult
from mcp.server.mcpserver.resolve import AcceptedElicitation
from mcp_types.version import is_version_at_least

from aftersales.app import App
from aftersales.clock import now
from aftersales.domain.callers import WRITE
from aftersales.domain.calls import CREATE_TICKET
from aftersales.domain.creation import TicketRequest
from aftersales.domain.enums import RefundMethod
from aftersales.domain.errors import AfterSalesError, InputNeeded
from aftersales.domain.tickets import Confirmation
from aftersales.mcp.caller import authorize
from aftersales.mcp.forms import ConfirmForm, Form, can_open_urls
from aftersales.mcp.url_questions import ACCOUNT_QUESTION, AccountNeeded, page_in_state
from aftersales.services import payouts
from aftersales.services.creation import Assessment, CreationPolicy
from aftersales.services.payouts import Payout, PayoutPage
from aftersales.worlds.context import current_id

POLL_SECONDS = 0.2  # how often a waiting 2025-11-25 call looks at its page (which another replica may have taken)


@dataclass(frozen=True)
class AccountStep:
    """What the bank-account step found: the payout, or why there is none (closed, expired, no_url)."""

    payout: Payout | None = None
    refused: str | None = None


def chosen_method(checked: Assessment, method_answer: ElicitationResult[Form]) -> RefundMethod | None:
    """The method the call goes on with: decided already, or the person's answer to the method question."""
    if checked.method is not None:
        return checked.method
    if isinstance(method_answer, AcceptedElicitation) and method_answer.data is not None:
        return RefundMethod(method_answer.data.model_dump()["refund_method"])
    return None


def confirmation_of(
    checked: Assessment, answer: ElicitationResult[ConfirmForm], policy: CreationPolicy
) -> Confirmation | Literal["declined"] | None:
    """How the refund was confirmed before the page: earlier, in this call's form, left to the host, or not at all."""
    if checked.confirmed_before is not None or not checked.needs_confirmation(policy):
        return checked.confirmed_before
    if not isinstance(answer, AcceptedElicitation):
        return "declined"
    return "host" if answer.data is None else ("person" if answer.data.confirm else "declined")


def no_url_mode(order_id: str) -> InputNeeded:
    """The error for a bank transfer a client cannot take the account for: it cannot open the shop's page."""
    return InputNeeded(
        f"The refund for order {order_id} goes by bank_transfer, which needs the customer's bank account, and this "
        "client cannot open the shop's bank-account page (it did not declare URL-mode elicitation).",
        "A bank account is taken only on the shop's own page, never in a form, in the chat or in the arguments.",
        "Do not ask the customer for their account. Offer store credit instead (call again with refund_method "
        "store_credit and the same idempotency_key), or hand the customer over to a person.",
    )


def page_link(app: App) -> Callable[[str], str]:
    """How a page token becomes the link a person opens (a world's pages carry its id, so they open in it)."""
    base, world = app.settings.page_base_url, current_id()
    return lambda token: f"{base}/payout/{token}" if world is None else f"{base}/payout/{world}/{token}"


def account_resolver(
    app: App, policy: CreationPolicy, checked_now: Callable[[TicketRequest], Assessment | AfterSalesError]
) -> Callable[..., Awaitable[AccountStep | None]]:
    """The resolver of the bank-account step, for `after_sales_create_ticket`."""

    async def ask_account(
        checked: Assessment | AfterSalesError | None,
        method_answer: ElicitationResult[Form],
        confirm_answer: ElicitationResult[ConfirmForm],
        request: TicketRequest,
        ctx: Context,
    ) -> AccountStep | None:
        if checked is None and request.refund_method is RefundMethod.BANK_TRANSFER:
            checked = await app.database.read(functools.partial(checked_now, request))
        if not isinstance(checked, Assessment) or not checked.actionable:
            return None
        if chosen_method(checked, method_answer) is not RefundMethod.BANK_TRANSFER:
            return None
        confirmation = confirmation_of(checked, confirm_answer, policy)
        if confirmation == "declined":
            return None  # the body answers the declined confirmation
        if checked.payout is not None and checked.payout.payout is not None:
            return AccountStep(payout=checked.payout.payout)
        if not can_open_urls(ctx):
            return AccountStep(refused="no_url")
        assert checked.line is not None
        message = (
            f"To refund {checked.line.product_name} (order {checked.line.order_id}) by bank transfer, the shop needs "
            "the customer's bank account. Open the shop's secure page to enter it; it is not shared with this chat."
        )
        if ctx.protocol_version is not None and is_version_at_least(ctx.protocol_version, "2026-07-28"):
            return await _round(app, request, confirmation, message, ctx)
        return await _mid_call(app, request, confirmation, message, ctx)

    return ask_account


async def _open(app: App, request: TicketRequest, confirmation: Confirmation | None) -> PayoutPage:
    """A fresh page for the call, written where the database work runs."""
    caller = authorize(WRITE, CREATE_TICKET)
    ttl, link = app.settings.payout_page_ttl, page_link(app)
    return await app.database.write(
        lambda: payouts.open_page(app.uow(write=True), caller, request, confirmation, now(), ttl, link)
    )


async def _round(
    app: App, request: TicketRequest, confirmation: Confirmation | None, message: str, ctx: Context
) -> AccountStep:
    """2026-07-28: ask in an input_required round, or read the retry's answer and the page's state."""
    answer = (ctx.input_responses or {}).get(ACCOUNT_QUESTION)
    page = page_in_state(ctx.request_state)
    if answer is None or page is None:
        opened = await _open(app, request, confirmation)
        raise AccountNeeded(message, opened.url, opened.request_id)
    request_id, url = page
    if getattr(answer, "action", None) != "accept":
        await app.database.write(lambda: payouts.close_page(app.uow(write=True), request_id))
        return AccountStep(refused="closed")
    state = await app.database.read(lambda: payouts.page_status(app.uow(), request_id, now()))
    if state is not None and state.payout is not None:
        return AccountStep(payout=state.payout)
    if state is None or state.status != "pending":
        return AccountStep(refused="expired" if state is None or state.status == "expired" else state.status)
    raise AccountNeeded(message, url, request_id)  # the person has not finished: the same page again


async def _mid_call(
    app: App, request: TicketRequest, confirmation: Confirmation | None, message: str, ctx: Context
) -> AccountStep:
    """2025-11-25: send the URL request mid-call, wait for the page, then notify the client it is complete."""
    opened = await _open(app, request, confirmation)
    answer = await ctx.elicit_url(message, opened.url, opened.request_id)
    if answer.action != "accept":
        await app.database.write(lambda: payouts.close_page(app.uow(write=True), opened.request_id))
        return AccountStep(refused="closed")
    # The page's own lifetime bounds the wait; its clock is the world's, so the wall clock bounds it too.
    with anyio.move_on_after(app.settings.payout_page_ttl.total_seconds()):
        while True:
            state = await app.database.read(lambda: payouts.page_status(app.uow(), opened.request_id, now()))
            if state is None or state.status != "pending":
                break
            await anyio.sleep(POLL_SECONDS)
    if state is not None and state.payout is not None:
        await ctx.session.send_elicit_complete(opened.request_id)
        return AccountStep(payout=state.payout)
    return AccountStep(refused="expired" if state is None or state.status in ("pending", "expired") else state.status)

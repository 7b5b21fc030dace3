"""The guided cases: what the agent asks for, what the person is expected to answer, and what to say at each step.

This is the one source of the cases: the page runs them through the demo backend, and nothing else scripts them.
Order lines and tickets come from the baseline's stories (seed/README.md); every run starts on a fresh fork of the
demo world.
"""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

TSHIRTS = "O-2026-001410"  # cheap_tshirts_in_window: ¥99.00 plus ¥10.00 shipping, under the confirmation threshold
LAPTOP = "O-2026-001423"  # vip_laptop_recent: ¥12,999.00, so the server asks for the method and a confirmation
AWAITING_RETURN = "T-2026-0325"  # ticket_awaiting_return: a return still waiting for the parcel, so cancellable
AWAITING_RETURN_ORDER = "O-2026-001382"  # its order
COD_TSHIRTS = "O-2026-001508"  # cod_tshirts_in_window: ¥99.00 paid in cash on delivery, so only the account is asked


def arguments(case: str, order_id: str, **changes: Any) -> dict[str, Any]:
    """after_sales_create_ticket's arguments for a defective item's return, keyed for this case."""
    return {
        "order_id": order_id,
        "line_no": 1,
        "kind": "return_and_refund",
        "reason_code": "defective",
        "description": "It stopped working after two days.",
        "idempotency_key": f"demo-{case}-0001",
    } | changes


class ColumnActions(Protocol):
    """What a case's script does with the column playing it (demo.column.Column, which imports this module)."""

    case: "Case"

    async def create(self, arguments: dict[str, Any], *, tamper: bool = False, hold: bool = False) -> dict[str, Any]:
        """Call after_sales_create_ticket, answering its questions as the person does."""
        ...

    async def cancel(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Call after_sales_cancel_ticket, answering its questions as the person does."""
        ...

    def phase(self, name: str) -> None:
        """Light up the case's step `name` on the page."""
        ...


@dataclass(frozen=True)
class Case:
    """One guided case: `steps` are (phase, narration) pairs the page lights up as either column reaches them."""

    key: str
    title: str
    summary: str
    order: str  # the order the case is about (its line 1)
    steps: tuple[tuple[str, str], ...]
    script: Callable[[ColumnActions], Awaitable[None]]
    suggested: dict[str, Any] = field(default_factory=dict)  # the answer a presenter gives: action and fields
    forms: bool = True  # whether the client declares that it can show forms
    short_rounds: frozenset[str] = frozenset()  # revisions whose client talks to the server with 5-second rounds

    def public(self) -> dict[str, Any]:
        """What the page needs to list and narrate the case."""
        steps = [{"phase": phase, "text": text} for phase, text in self.steps]
        return {
            "key": self.key,
            "title": self.title,
            "summary": self.summary,
            "steps": steps,
            "forms": self.forms,
            # The short-rounds server is the demo's own: another server's rounds live as long as it says.
            "builtin_only": bool(self.short_rounds),
        }


async def one_ticket(column: ColumnActions) -> None:
    await column.create(arguments(column.case.key, column.case.order))


async def without_forms(column: ColumnActions) -> None:
    call = arguments(column.case.key, column.case.order)
    first = await column.create(call)
    if first.get("is_error"):
        column.phase("follow")
        # The model did what the error said: asked the customer in the chat, then called again with the same key.
        await column.create(call | {"refund_method": "original_payment"})


async def replay(column: ColumnActions) -> None:
    call = arguments(column.case.key, column.case.order)
    await column.create(call)
    column.phase("replay")
    await column.create(call)


async def bank_transfer(column: ColumnActions) -> None:
    await column.create(arguments(column.case.key, column.case.order, refund_method="bank_transfer"))


async def tampered(column: ColumnActions) -> None:
    await column.create(arguments(column.case.key, column.case.order), tamper=True)


async def expired(column: ColumnActions) -> None:
    await column.create(arguments(column.case.key, column.case.order), hold=True)


async def withdraw(column: ColumnActions) -> None:
    reason = "I found it cheaper elsewhere and will keep the one I have."
    await column.cancel({"ticket_id": AWAITING_RETURN, "reason": reason, "idempotency_key": "demo-withdraw-0001"})


ASKED = (
    "ask",
    "The server asks the person. 2026-07-28: the call returns input_required with the questions and a sealed "
    "requestState. 2025-11-25: the server sends elicitation/create while the call stays open.",
)
DONE = ("result", "The model's pane shows what the model receives: the outcome, the reason and the next step.")
CASES = [
    Case(
        "method",
        "Asks where the refund goes",
        "A ¥99.00 return without a refund method: the server asks the person one question.",
        TSHIRTS,
        (
            ("call", "The agent opens a return for a T-shirt pack without refund_method: only the customer knows."),
            ASKED,
            ("answer", "Choose where the money goes and submit (Enter)."),
            (
                "retry",
                "2026-07-28: the client calls again with the answer and the requestState. 2025-11-25: the "
                "answer is the response to elicitation/create. The same ticket number on both.",
            ),
            DONE,
        ),
        one_ticket,
        {"action": "accept", "refund_method": "store_credit"},
    ),
    Case(
        "large",
        "Large refund: two questions",
        "A ¥12,999.00 laptop: the refund method and a confirmation, asked in one round.",
        LAPTOP,
        (
            ("call", "The agent opens a return for a ¥12,999.00 laptop without refund_method."),
            (
                "ask",
                "Two questions: where the money goes, and a confirmation above ¥500.00. 2026-07-28 sends both "
                "in one input_required round; 2025-11-25 sends two elicitation/create requests, one after the other, "
                "nested under the one call.",
            ),
            ("answer", "The confirmation never names a method the person has not chosen yet. Answer and submit."),
            ("retry", "2026-07-28: one retry carries both answers and the unchanged requestState."),
            DONE,
        ),
        one_ticket,
        {"action": "accept", "refund_method": "original_payment", "confirm": True},
    ),
    Case(
        "decline",
        "The person declines",
        "The person declines the question: nothing is created.",
        TSHIRTS,
        (
            ("call", "The same ¥99.00 return, without refund_method."),
            ASKED,
            ("answer", "Press Decline: the person does not want to answer."),
            (
                "result",
                "Nothing is created. The model is told the customer declined, and not to retry unless the "
                "customer changes their mind.",
            ),
        ),
        one_ticket,
        {"action": "decline"},
    ),
    Case(
        "cancel",
        "The person cancels",
        "The person dismisses the form: nothing is created.",
        TSHIRTS,
        (
            ("call", "The same ¥99.00 return, without refund_method."),
            ASKED,
            ("answer", "Press Close without answering (or Escape): the client answers cancel."),
            (
                "result",
                "Nothing is created; the reason says the question was cancelled, and the next step says not "
                "to retry unless the customer changes their mind.",
            ),
        ),
        one_ticket,
        {"action": "cancel"},
    ),
    Case(
        "bank",
        "Refund to a bank account",
        "A cash-on-delivery order: the account is typed on the shop's own page, never in a form or the chat.",
        COD_TSHIRTS,
        (
            (
                "call",
                "The agent opens a return for a T-shirt pack paid in cash on delivery, to be refunded by bank "
                "transfer: there is no card to refund, and the account is sensitive.",
            ),
            (
                "ask",
                "The server asks with a URL, not a form (URL-mode elicitation). 2026-07-28: input_required whose "
                "question is the page's address. 2025-11-25: elicitation/create with mode url while the call stays "
                "open. The host shows the link and the domain it opens.",
            ),
            (
                "answer",
                "Open the page, type the holder, the account (an IBAN or a bank card number) and the bank, and "
                "submit. The number goes from the page to the shop; the client and the model never carry it.",
            ),
            (
                "retry",
                "2026-07-28: the person says they have finished, and the client calls again with the requestState. "
                "2025-11-25: the server sends notifications/elicitation/complete and the call goes on.",
            ),
            (
                "result",
                "The model is told the account was received, by its mask (•••• and the last four) and a payout "
                "reference: the number itself never reached it.",
            ),
        ),
        bank_transfer,
        {"action": "accept"},
    ),
    Case(
        "no-forms",
        "Client without forms",
        "The client declares no elicitation capability: the model must ask.",
        LAPTOP,
        (
            ("call", "This client declares no elicitation capability, so the server never sends it a form."),
            (
                "result",
                "A tool error (isError) in three parts: what was missing, the rule, and what to do next: ask "
                "the customer, then call again with refund_method and the same idempotency_key.",
            ),
            (
                "follow",
                "The model follows it: it asks in the chat and calls again with refund_method. The ticket is "
                "created, and its timeline says the confirmation was left to the host.",
            ),
        ),
        without_forms,
        forms=False,
    ),
    Case(
        "replay",
        "Retry with the same key",
        "The agent retries with the same idempotency key: the same ticket, no second one.",
        TSHIRTS,
        (
            ("call", "The agent opens the ¥99.00 return; the person chooses the method."),
            ("answer", "Choose a method and submit."),
            (
                "replay",
                "The agent never saw the answer (say its connection dropped) and sends the same call with the "
                "same idempotency_key: outcome replayed, the same ticket number, no question asked again.",
            ),
            DONE,
        ),
        replay,
        {"action": "accept", "refund_method": "store_credit"},
    ),
    Case(
        "tampered",
        "Tampered round",
        "The client changes what it sends back: refused, nothing created.",
        LAPTOP,
        (
            ("call", "The agent opens the laptop return; the person answers both questions."),
            ("answer", "Answer and submit; this client then tampers with what it sends back."),
            (
                "tamper",
                "2026-07-28: one character of the sealed requestState is changed, and the server refuses the "
                "retry with JSON-RPC -32602 (Invalid or expired requestState). 2025-11-25 has no requestState: the "
                'client forges the answer instead (refund_method "cash", never offered) and gets a tool error.',
            ),
            ("result", "Nothing is created on either revision."),
        ),
        tampered,
        {"action": "accept", "refund_method": "original_payment", "confirm": True},
    ),
    Case(
        "expired",
        "Expired round",
        "The answer comes back after the round's lifetime.",
        TSHIRTS,
        (
            (
                "call",
                "The ¥99.00 return again. For this case the 2026-07-28 column talks to a second server on the same "
                "worlds (/short-rounds/mcp) whose rounds live 5 s (AFTERSALES_STATE_TTL=5s) instead of the default "
                "10 minutes, so a round expires while you watch.",
            ),
            (
                "answer",
                "Choose a method and submit; the client holds the answer until the round has expired (a "
                "person who walked away).",
            ),
            (
                "wait",
                "2026-07-28: the sealed requestState has passed its expiry, so the retry is refused with "
                "-32602 and nothing is created. 2025-11-25 has no round to expire: the server kept the call open the "
                "whole time and creates the ticket.",
            ),
            DONE,
        ),
        expired,
        {"action": "accept", "refund_method": "store_credit"},
        short_rounds=frozenset({"2026-07-28"}),
    ),
    Case(
        "withdraw",
        "Cancel a ticket: confirm first",
        f"The customer withdraws return {AWAITING_RETURN}: a destructive call, so the person confirms.",
        AWAITING_RETURN_ORDER,
        (
            (
                "call",
                f"The customer no longer wants return {AWAITING_RETURN} (its parcel is not sent yet). The agent calls "
                "after_sales_cancel_ticket, annotated destructiveHint: the ticket cannot be reopened.",
            ),
            (
                "ask",
                "Before anything changes the server asks for a confirmation naming the ticket, the item and what the "
                "customer gives up. 2026-07-28: one input_required round with that one question. 2025-11-25: one "
                "elicitation/create nested under the call.",
            ),
            ("answer", "Tick the box (never ticked for you) and submit. Decline or Close leave the ticket as it was."),
            (
                "retry",
                "2026-07-28: the retry carries the confirmation and the unchanged requestState. 2025-11-25: the "
                "answer goes back on the call that is still open.",
            ),
            (
                "result",
                "The ticket is closed as cancelled. The model is told to tell the customer; the timeline records "
                "who cancelled it, for whom, and why.",
            ),
        ),
        withdraw,
        {"action": "accept", "confirm": True},
    ),
]
BY_KEY = {case.key: case for case in CASES}

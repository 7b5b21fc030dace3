"""Rules for opening a ticket: method, quote, open tickets, review and confirmation."""

from dataclasses import asdict, dataclass
from typing import Any

from aftersales.domain.enums import Channel, ReasonCode, RefundMethod, TicketKind
from aftersales.domain.errors import InputNeeded, RuleViolation
from aftersales.domain.money import format_money
from aftersales.domain.quotes import Quote
from aftersales.domain.rule_codes import RuleCode


@dataclass(frozen=True)
class TicketRequest:
    """What the caller asked for; `arguments()` is what an idempotency key remembers and compares."""

    order_id: str
    line_no: int
    quantity: int
    kind: TicketKind
    reason: ReasonCode
    description: str
    refund_method: RefundMethod | None
    quote_id: str | None
    idempotency_key: str
    channel: Channel | None = None  # where the customer asked: app, web or miniprogram, when the caller knows

    def arguments(self) -> dict[str, Any]:
        """The call's arguments with defaults applied, minus the key itself."""
        values = asdict(self)
        values.pop("idempotency_key")
        values["reason_code"] = values.pop("reason")
        return {name: (value.value if hasattr(value, "value") else value) for name, value in values.items()}


@dataclass(frozen=True)
class KeyRecord:
    """What an idempotency key remembers: its first call's arguments and, once the ticket exists, the result."""

    arguments: dict[str, Any]
    result: str | None  # the first call's CreateResult as JSON; None while that call is still creating


def differing_fields(stored: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """Argument names whose values differ between two calls, in a stable order."""
    return sorted(name for name in stored.keys() | current.keys() if stored.get(name) != current.get(name))


def idempotency_conflict(
    key: str, fields: list[str], stored: dict[str, Any], current: dict[str, Any], intent: str = "ticket"
) -> RuleViolation:
    """The error for a key reused with different arguments (`intent`: what one key stands for)."""
    changes = "; ".join(f"{name}: first {stored.get(name)!r}, now {current.get(name)!r}" for name in fields)
    return RuleViolation(
        RuleCode.IDEMPOTENCY_KEY_REUSED,
        f'idempotency_key "{key}" was already used for a different request ({changes}).',
        f"One key stands for one intended {intent}; a retry must send exactly the same arguments.",
        f"To retry the first request, send its original arguments. For a different {intent}, make a new key "
        "(for example a fresh UUID).",
    )


def check_refund_method(kind: TicketKind, method: RefundMethod | None, allowed: list[RefundMethod]) -> None:
    """Exchanges and repairs take no method; refund methods must be allowed for the order's payment."""
    if not kind.refunds and method is not None:
        raise RuleViolation(
            RuleCode.REFUND_METHOD_NOT_APPLICABLE,
            f"refund_method {method.value!r} was given for a {kind.value} ticket.",
            "Only refund_only and return_and_refund tickets pay money back; exchanges and repairs take no method.",
            "Call again without refund_method.",
        )
    if method is not None and method not in allowed:
        options = ", ".join(m.value for m in allowed)
        raise RuleViolation(
            RuleCode.REFUND_METHOD_UNAVAILABLE,
            f"refund_method {method.value!r} is not available for this order.",
            f"This order can be refunded to: {options} (gift-card payments come back as store credit; cash paid on "
            "delivery by bank transfer or store credit).",
            f"Ask the customer to choose {options}, or omit refund_method to let them choose.",
        )


def check_quote(quote: Quote, request: TicketRequest) -> None:
    """A quote locks an amount only for the exact line, quantity and reason it was made for."""
    if not request.kind.refunds:
        raise RuleViolation(
            RuleCode.QUOTE_NOT_APPLICABLE,
            f"quote_id {request.quote_id} was given for a {request.kind.value} ticket.",
            "Quotes lock refund amounts; exchanges and repairs refund nothing.",
            "Call again without quote_id.",
        )
    quoted = {
        "order_id": quote.order_id,
        "line_no": quote.line_no,
        "quantity": quote.quantity,
        "reason_code": quote.reason.value,
    }
    asked = request.arguments()
    wanted = {name: asked[name] for name in quoted}
    fields = differing_fields(quoted, wanted)
    if fields:
        changes = "; ".join(f"{name}: quote {quoted[name]!r}, request {wanted[name]!r}" for name in fields)
        raise RuleViolation(
            RuleCode.QUOTE_MISMATCH,
            f"Quote {request.quote_id} does not match this request ({changes}).",
            "A quote locks the amount only for the order line, quantity and reason it was estimated for.",
            "Call after_sales_estimate_refund with the request's values for a matching quote, or send the "
            "quote's values.",
        )


def check_no_open_ticket(open_ticket_id: str | None, order_id: str, line_no: int) -> None:
    """One open ticket per order line."""
    if open_ticket_id is None:
        return
    raise RuleViolation(
        RuleCode.LINE_HAS_OPEN_TICKET,
        f"Order {order_id} line {line_no} already has an open ticket, {open_ticket_id}.",
        "An order line can have only one open ticket at a time.",
        f"Do not create another; call after_sales_query_ticket with ticket_id {open_ticket_id} and tell the "
        "customer where it stands.",
    )


def missing_refund_method(kind: TicketKind, allowed: list[RefundMethod]) -> InputNeeded:
    """The error when a refund kind has no method and the client cannot ask the person (a question, not a refusal)."""
    options = " or ".join(m.value for m in allowed)
    return InputNeeded(
        f"No refund_method was given for a {kind.value} ticket, and this client cannot show the customer a form.",
        "Refund tickets need to know where the money goes.",
        f"Ask the customer whether they want {options}, then call again with refund_method and the same "
        "idempotency_key.",
    )


def needs_review(total_minor: int, review_above_minor: int, recent_tickets: int, recent_limit: int) -> bool:
    """A specialist reviews large refunds and customers who opened many tickets lately."""
    return total_minor > review_above_minor or recent_tickets >= recent_limit


# How a confirmation names where the money goes (a scripted customer reads it back: aftersales.testing.customer).
REFUND_WHERE = {
    RefundMethod.ORIGINAL_PAYMENT: "to the original payment method",
    RefundMethod.STORE_CREDIT: "as store credit",
    RefundMethod.BANK_TRANSFER: "by bank transfer",
}


def confirmation_message(item: str, quantity: int, total_minor: int, currency: str, method: RefundMethod | None) -> str:
    """The question a person confirms before a large refund ticket is opened.

    A method still to be chosen is asked in its own question, often in the same round and shown in any order, so
    the wording then leaves the method out instead of pointing at an answer the person may not have given yet.
    """
    where = f" {REFUND_WHERE[method]}" if method is not None else ""
    return (
        f"Open a refund ticket for {quantity} x {item}, refunding {format_money(total_minor, currency)}{where}? "
        "Please confirm with the customer."
    )

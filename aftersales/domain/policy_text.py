"""The shop's policy as Markdown for agents, generated from the values the rules apply (domain/policy.py) and the
configured thresholds, so the text an agent reads cannot disagree with what the tools do.

Every number, list and table below is read from policy.py, the enums or the arguments; none is typed in here.
"""

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from aftersales.domain.enums import ReasonCode, TicketKind, TicketStatus
from aftersales.domain.money import format_money
from aftersales.domain.policy import (
    CANCELLABLE,
    CATEGORY_POLICIES,
    KIND_STATUSES,
    NOT_CANCELLABLE,
    REFUND_METHODS,
    SELLER_AT_FAULT,
    STATUS_SLA,
    Thresholds,
    holds_units,
    warranty_ends,
)
from aftersales.domain.rule_codes import code_table
from aftersales.durations import describe_duration

CURRENCY = "CNY"  # the currency the thresholds are configured in (AFTERSALES_*_MINOR)


@dataclass(frozen=True)
class PolicyText:
    """The rendered policy and its version: a hash of the text, which changes whenever a rule or setting does."""

    version: str
    markdown: str


def render_policy(thresholds: Thresholds, quote_ttl: timedelta, idempotency_ttl: timedelta) -> PolicyText:
    """The policy document for these settings, headed by its version."""
    body = "\n\n".join(
        [
            _windows(),
            _fault(),
            _refund_methods(),
            _repairs(),
            _units(),
            _people(thresholds),
            _cancelling(),
            _durations(),
            _handles(quote_ttl, idempotency_ttl),
            _codes(),
        ]
    )
    version = hashlib.sha256(body.encode()).hexdigest()[:12]
    heading = (
        f"# After-sales policy\n\nVersion `{version}`: a hash of the text below, which changes whenever a rule or a "
        "setting of this server changes. The server generates this text from the same values its tools apply, so "
        "the tools' answers always agree with it."
    )
    return PolicyText(version=version, markdown=f"{heading}\n\n{body}\n")


def _words(values: list[str], last: str = "and") -> str:
    """ "a", "a and b", "a, b and c"."""
    return values[0] if len(values) == 1 else f"{', '.join(values[:-1])} {last} {values[-1]}"


def _percent(bps: int) -> str:
    return f"{bps / 100:g}%"


def _windows() -> str:
    rows = "\n".join(
        f"| {c.name} | {c.return_window_days} days | {_percent(c.restocking_fee_bps)} |" for c in CATEGORY_POLICIES
    )
    return (
        "## Return windows and restocking fees\n\n"
        "A delivered item can be refunded, returned or exchanged until its category's return window closes, counted "
        "from delivery. When the reason is not the shop's fault, a restocking fee (a share of the item amount) is "
        "deducted from the refund. Some products cannot be returned once delivered, for hygiene or safety; "
        "after_sales_estimate_refund says so for each line.\n\n"
        f"| category | return window | restocking fee when not the shop's fault |\n| --- | --- | --- |\n{rows}"
    )


def _fault() -> str:
    at_fault = [reason.value for reason in ReasonCode if reason in SELLER_AT_FAULT]
    not_at_fault = [reason.value for reason in ReasonCode if reason not in SELLER_AT_FAULT]
    return (
        "## Whose fault it is, and shipping\n\n"
        f"- The shop is at fault when the reason is {_words(at_fault, 'or')}: no restocking fee, and the order's "
        "shipping fee is refunded in proportion to the goods returned (an order that shipped free has none to "
        "refund).\n"
        f"- When the reason is {_words(not_at_fault, 'or')}: the category's restocking fee applies and shipping is "
        "not refunded.\n"
        "- The item amount is the unit price times the quantity, less the line's discount shared per unit and "
        "rounded so that partial returns never add up to more than was paid. The refund is the item amount, less "
        "the restocking fee, plus the shipping refund; amounts are integer minor units (fen for CNY)."
    )


def _refund_methods() -> str:
    rows = "\n".join(
        f"| {payment.value} | {_words([m.value for m in methods], 'or')} |"
        for payment, methods in REFUND_METHODS.items()
    )
    kinds = _words([kind.value for kind in TicketKind if kind.refunds])
    return (
        "## Where refunds go\n\n"
        f"Only {kinds} tickets pay money back; exchanges and repairs do not.\n\n"
        f"| the order was paid by | the refund may go to |\n| --- | --- |\n{rows}"
    )


def _repairs() -> str:
    delivered = datetime(2026, 1, 31, tzinfo=UTC)
    ends = warranty_ends(delivered, 1)  # the example is worked out by the rule itself
    return (
        "## Warranty repairs\n\n"
        "A repairable product is repaired free of charge until its warranty ends: the warranty runs whole months "
        f"from delivery (delivered on {delivered.day} {delivered:%B} with a one-month warranty, it ends on "
        f"{ends.day} {ends:%B}), and its length differs by product. Once the return window has closed, a warranty "
        "repair is the only option left for an item. Some products cannot be repaired by the shop."
    )


def _units() -> str:
    completed = [kind.value for kind in TicketKind if holds_units(kind, TicketStatus.COMPLETED)]
    released = [kind.value for kind in TicketKind if not holds_units(kind, TicketStatus.COMPLETED)]
    closed = [s.value for s in TicketStatus if not s.is_open and not any(holds_units(k, s) for k in TicketKind)]
    return (
        "## Which tickets an order line allows\n\n"
        "after_sales_get_order shows, for every line of an order, which kinds of ticket it allows today, how many "
        "units a new ticket may cover, and why each other kind is not possible, by these rules:\n\n"
        "- After-sales service starts once the order is delivered; a cancelled order has nothing to return.\n"
        "- An order line has at most one open ticket at a time; ask about the open one instead of opening another.\n"
        "- A ticket covers up to the units of the line that no other ticket holds. Open tickets hold their units, "
        f"and so do completed {_words(completed)} tickets; completed {_words(released)} tickets and "
        f"{_words(closed, 'or')} tickets hold none, so those units can be ticketed again."
    )


def _people(thresholds: Thresholds) -> str:
    confirm = format_money(thresholds.confirm_above_minor, CURRENCY)
    review = format_money(thresholds.review_above_minor, CURRENCY)
    window = describe_duration(thresholds.review_window)
    return (
        "## When a person steps in\n\n"
        f"- Refunds above {confirm} are confirmed by the customer before the ticket opens: the server asks them in "
        "a form, or, when the client cannot show forms, the agent confirms with them first.\n"
        f"- Refunds above {review}, and tickets of a customer who opened {thresholds.review_recent_tickets} or more "
        f"tickets within {window}, start under a specialist's review instead of approved."
    )


def _cancelling() -> str:
    allowed = "\n".join(f"- {stage.value}: {why}." for stage, why in CANCELLABLE.items())
    refused = "\n".join(
        f"- {stage.value}: {refusal.why}. Instead, {refusal.instead}." for stage, refusal in NOT_CANCELLABLE.items()
    )
    return (
        "## Cancelling a ticket\n\n"
        "The customer may withdraw a ticket (after_sales_cancel_ticket) while it is in one of these stages, and "
        "confirms before it is cancelled; cancelling frees the units it held:\n\n"
        f"{allowed}\n\nIt cannot be cancelled in the other stages:\n\n{refused}"
    )


def _durations() -> str:
    kinds_of = {
        status: [k.value for k, statuses in KIND_STATUSES.items() if status in statuses] for status in STATUS_SLA
    }
    rows = "\n".join(
        f"| {status.value} | {describe_duration(due)} | {_words(kinds_of[status])} |"
        for status, due in STATUS_SLA.items()
    )
    return (
        "## How long each step usually takes\n\n"
        "after_sales_query_ticket gives the next step of a ticket with its date, from these durations.\n\n"
        f"| status | usually takes | for tickets of kind |\n| --- | --- | --- |\n{rows}"
    )


def _handles(quote_ttl: timedelta, idempotency_ttl: timedelta) -> str:
    return (
        "## Quotes and retries\n\n"
        f"- A refund estimate is held as a quote for {describe_duration(quote_ttl)}; only the caller who asked may "
        "use it, and it locks the amount for the order line, quantity and reason it was made for.\n"
        "- Each intended ticket or cancellation carries its own idempotency_key: the same key with the same "
        "arguments returns the first result without acting twice, and a key is kept "
        f"{describe_duration(idempotency_ttl)}."
    )


def _codes() -> str:
    return (
        "## Rule codes\n\n"
        "A tool error that refuses by one of these rules says which in its structured content: error_kind rule and "
        "error_code, one of these codes. Act on the code; the message explains it to the customer.\n\n"
        f"{code_table()}"
    )

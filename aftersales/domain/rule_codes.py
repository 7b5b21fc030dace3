"""Every business rule a tool can refuse by, as a stable code with its meaning: the one list of them.

A RuleViolation carries one of these codes, and a tool error publishes it (`error_code` in its structured content),
so an agent, a harness rule and a test act on the code while the words of the message stay free to improve. The
policy resource and the README list these codes with these meanings.
"""

from enum import StrEnum


class RuleCode(StrEnum):
    """The stable code of a business rule a tool refuses by; the policy resource lists each with its meaning."""

    meaning: str  # one line: what a refusal by this rule means

    def __new__(cls, value: str, meaning: str) -> "RuleCode":
        member = str.__new__(cls, value)
        member._value_ = value
        member.meaning = meaning
        return member

    ORDER_CANCELLED = "order_cancelled", "The order was cancelled: it has nothing to return or refund."
    ORDER_NOT_DELIVERED = "order_not_delivered", "The order is not delivered yet: after-sales service starts then."
    ITEM_NOT_RETURNABLE = "item_not_returnable", "The product cannot be returned once delivered (hygiene or safety)."
    RETURN_WINDOW_CLOSED = "return_window_closed", "The line's return window has closed: no refund or exchange."
    ITEM_NOT_REPAIRABLE = "item_not_repairable", "The shop does not repair this product."
    WARRANTY_ENDED = "warranty_ended", "The product's warranty has ended: no free repair."
    LINE_HAS_OPEN_TICKET = "line_has_open_ticket", "The order line already has an open ticket: one at a time."
    QUANTITY_NOT_AVAILABLE = (
        "quantity_not_available",
        "More units were asked for than the line has left that no other ticket holds.",
    )
    REFUND_METHOD_NOT_APPLICABLE = (
        "refund_method_not_applicable",
        "A refund method was given for an exchange or a repair, which pays nothing back.",
    )
    REFUND_METHOD_UNAVAILABLE = (
        "refund_method_unavailable",
        "The refund method is not one the order's payment can be refunded to.",
    )
    QUOTE_NOT_APPLICABLE = "quote_not_applicable", "A quote was given for an exchange or a repair: they refund nothing."
    QUOTE_MISMATCH = "quote_mismatch", "The quote was made for another order line, quantity or reason."
    TICKET_NOT_CANCELLABLE = "ticket_not_cancellable", "The ticket is past the stages in which it can be cancelled."
    IDEMPOTENCY_KEY_REUSED = (
        "idempotency_key_reused",
        "The idempotency_key was already used for a request with different arguments.",
    )


def code_table() -> str:
    """The codes and their meanings as a Markdown table (the policy resource and the README show this one)."""
    rows = "\n".join(f"| `{code.value}` | {code.meaning} |" for code in RuleCode)
    return f"| code | meaning |\n| --- | --- |\n{rows}"

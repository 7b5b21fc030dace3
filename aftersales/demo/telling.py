"""What the person is told when a call ends: the ticket they got, or why there is none."""

from typing import Any

METHODS = {
    "original_payment": "back to the original payment",
    "store_credit": "as store credit",
    "bank_transfer": "to the bank account",
}


def for_person(outcome: dict[str, Any]) -> str:
    """One or two sentences for the person's pane, from what the call returned."""
    error = outcome.get("error")
    if error is not None:
        return (
            f"Nothing was created: the server refused the call (JSON-RPC {error['code']}, {error['message']}). "
            "The answers were not used."
        )
    if outcome.get("is_error"):
        return "No ticket yet: the agent got an error that tells it what to do next (see the model's pane)."
    result = outcome.get("structured") or {}
    ticket = result.get("ticket")
    if result.get("outcome") == "not_created" or ticket is None:
        return f"Nothing was created. {result.get('reason') or ''}".strip()
    if result.get("outcome") == "cancelled":
        return f"Ticket {ticket['ticket_id']} is cancelled: it is closed, and nothing more happens with it."
    if result.get("outcome") == "not_cancelled":
        return f"Nothing was cancelled: ticket {ticket['ticket_id']} goes on as before. {result.get('reason') or ''}"
    refund = ticket.get("refund") or {}
    money = f" {refund['display']} {METHODS.get(refund.get('method') or '', '')}".rstrip() if refund else ""
    if result.get("outcome") == "replayed":
        return f"Ticket {ticket['ticket_id']} again: the same ticket as before, nothing new was created."
    return f"Ticket {ticket['ticket_id']} is open:{money}. {ticket['next_step']}"

"""aftersales/demo/telling.py: what the person's pane says when a call ends."""

from aftersales.demo.telling import for_person

TICKET = {"ticket_id": "T-2026-0325", "refund": {"display": "¥1,899.00", "method": "original_payment"}}


def test_the_person_is_told_a_cancelled_ticket_is_closed_and_a_refused_one_goes_on_as_before():
    cancelled = for_person({"is_error": False, "structured": {"outcome": "cancelled", "ticket": TICKET}})
    kept = for_person(
        {
            "is_error": False,
            "structured": {"outcome": "not_cancelled", "ticket": TICKET, "reason": "The customer declined."},
        }
    )
    assert cancelled == "Ticket T-2026-0325 is cancelled: it is closed, and nothing more happens with it."
    assert kept == "Nothing was cancelled: ticket T-2026-0325 goes on as before. The customer declined."


def test_a_created_ticket_still_names_its_refund_and_next_step():
    ticket = TICKET | {"next_step": "Send the item back."}
    told = for_person({"is_error": False, "structured": {"outcome": "created", "ticket": ticket}})
    assert told == "Ticket T-2026-0325 is open: ¥1,899.00 back to the original payment. Send the item back."

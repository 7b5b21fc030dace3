"""A ticket's number, who confirmed a change, and a new ticket with its timeline as creation hands it to storage."""

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, get_args

from aftersales.domain.enums import Channel, EventType, ReasonCode, RefundMethod, TicketKind, TicketStatus
from aftersales.domain.refunds import Breakdown

TICKET_NUMBER_PATTERN = r"^T-\d{4}-\d{4,}$"
WORDS_IN_TIMELINE = 120  # characters of the customer's words a timeline note quotes
# Who confirmed a refund or a cancellation, for the timeline: the person in a form, or the host application when its
# client cannot show forms (it confirmed with the customer before calling).
Confirmation = Literal["person", "host"]
CONFIRMATIONS: tuple[Confirmation, ...] = get_args(Confirmation)


def ticket_number(year: int, sequence: int) -> str:
    """The number of the `sequence`-th ticket opened in `year`: T-YYYY-NNNN (more digits past 9999)."""
    return f"T-{year}-{sequence:04d}"


def customer_words(text: str) -> str:
    """The customer's words as a timeline note quotes them: cut to WORDS_IN_TIMELINE characters."""
    return text if len(text) <= WORDS_IN_TIMELINE else text[: WORDS_IN_TIMELINE - 3] + "..."


@dataclass(frozen=True)
class TimelineEntry:
    """One event in a ticket's timeline."""

    occurred_at: datetime
    type: str
    actor: str
    note: str
    channel: str | None = None  # where the call that wrote it came from, when it said so


@dataclass(frozen=True)
class NewTicket:
    """A ticket about to be stored: numbered, priced and with its first status."""

    id: str
    order_id: str
    line_no: int
    customer_id: str
    quantity: int
    kind: TicketKind
    reason: ReasonCode
    description: str
    refund_method: RefundMethod | None
    currency: str
    refund: Breakdown
    status: TicketStatus
    created_by: str
    created_at: datetime
    channel: Channel | None = None  # where it was raised, when the caller said so

    def entry(self, event: EventType, actor: str, note: str) -> TimelineEntry:
        """A timeline entry at the ticket's creation time, from the channel the ticket came from."""
        return TimelineEntry(self.created_at, event.value, actor, note, self.channel.value if self.channel else None)

"""Coherent ticket timelines: the events a ticket of a kind passes through to reach a status."""

import random
from datetime import datetime, timedelta

from aftersales.domain.enums import EventType, TicketKind, TicketStatus

Step = tuple[EventType, str, str, float]  # event, actor, note, typical hours since the previous event
Event = tuple[datetime, EventType, str, str]

_CREATED: Step = (EventType.CREATED, "customer", "Ticket opened by the customer.", 0)
_REVIEW: Step = (EventType.REVIEW_STARTED, "system", "Queued for a specialist's review.", 0.5)
_APPROVED: Step = (EventType.APPROVED, "agent", "Request approved after review.", 20)
_AUTO_APPROVED: Step = (EventType.APPROVED, "system", "Approved automatically under the after-sales policy.", 0.01)
_LABEL: Step = (EventType.RETURN_LABEL_SENT, "system", "Prepaid return label sent to the customer.", 1)
_RECEIVED: Step = (EventType.PARCEL_RECEIVED, "warehouse", "Return parcel received and inspected.", 70)

_AFTER_RETURN: dict[TicketKind, list[tuple[Step, TicketStatus | None]]] = {
    TicketKind.RETURN_AND_REFUND: [
        ((EventType.REFUND_ISSUED, "system", "Refund issued.", 6), TicketStatus.REFUNDING),
        ((EventType.REFUND_COMPLETED, "system", "Refund received by the customer.", 60), None),
    ],
    TicketKind.EXCHANGE: [((EventType.REPLACEMENT_SHIPPED, "warehouse", "Replacement shipped.", 20), None)],
    TicketKind.REPAIR: [
        ((EventType.REPAIR_STARTED, "workshop", "Repair started.", 10), TicketStatus.IN_REPAIR),
        ((EventType.REPAIR_FINISHED, "workshop", "Repair finished; item shipped back.", 120), None),
    ],
}


def _path(kind: TicketKind, reviewed: bool) -> list[tuple[Step, TicketStatus | None]]:
    """Every step of a kind's happy path, each tagged with the status it leaves the ticket in."""
    steps: list[tuple[Step, TicketStatus | None]] = [(_CREATED, None)]
    if reviewed:
        steps += [(_REVIEW, TicketStatus.UNDER_REVIEW), (_APPROVED, TicketStatus.APPROVED)]
    else:
        steps += [(_AUTO_APPROVED, TicketStatus.APPROVED)]
    if kind is TicketKind.REFUND_ONLY:
        steps += [
            ((EventType.REFUND_ISSUED, "system", "Refund issued.", 4), TicketStatus.REFUNDING),
            ((EventType.REFUND_COMPLETED, "system", "Refund received by the customer.", 60), None),
        ]
    else:
        steps += [(_LABEL, TicketStatus.AWAITING_RETURN), (_RECEIVED, None), *_AFTER_RETURN[kind]]
    steps.append(((EventType.COMPLETED, "system", "Ticket completed.", 1), TicketStatus.COMPLETED))
    return steps


def _steps_to(kind: TicketKind, status: TicketStatus, reviewed: bool) -> list[Step]:
    """The steps up to the one that leaves the ticket in `status` (or a closing step)."""
    if status is TicketStatus.REJECTED:
        return [
            _CREATED,
            _REVIEW,
            (EventType.REJECTED, "agent", "Rejected: the photos show wear beyond normal use.", 26),
        ]
    if status is TicketStatus.CANCELLED:
        opening = [_CREATED, _REVIEW] if reviewed else [_CREATED, _AUTO_APPROVED]
        return [*opening, (EventType.CANCELLED, "customer", "Cancelled at the customer's request.", 8)]
    path = _path(kind, reviewed or status is TicketStatus.UNDER_REVIEW)
    end = max(i for i, (_, reached) in enumerate(path) if reached is status)
    return [step for step, _ in path[: end + 1]]


def timeline_for(
    kind: TicketKind, status: TicketStatus, created: datetime, rng: random.Random, anchor: datetime, reviewed: bool
) -> list[Event]:
    """Events in time order from `created`, squeezed so the last falls before `anchor`.

    `reviewed` says whether the policy sent the ticket to a specialist; otherwise it was approved automatically.
    """
    steps = _steps_to(kind, status, reviewed)
    gaps = [hours * rng.uniform(0.6, 1.4) for *_, hours in steps]
    room = (anchor - timedelta(hours=1) - created).total_seconds() / 3600
    scale = min(1.0, room / sum(gaps)) if sum(gaps) > 0 else 1.0
    events: list[Event] = []
    at = created
    for (event, actor, note, _), gap in zip(steps, gaps, strict=True):
        at = at + timedelta(hours=gap * scale)
        events.append((at.replace(microsecond=0), event, actor, note))
    return events

"""The one ticket builder both generators use: planned tickets are numbered in creation order and built by the rules.

A generator plans each ticket (its line, kind, status, reason, method and creation time); `schedule` puts the plans
in creation order, numbers them per year and counts each customer's recent tickets; `build` prices the ticket with
the refund rules, decides review with the live review rule, and draws its quantity, words and timeline.
"""

import random
from bisect import bisect_left
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from aftersales.domain.creation import needs_review
from aftersales.domain.enums import ReasonCode, RefundMethod, TicketKind, TicketStatus
from aftersales.domain.policy import CategoryPolicy, Thresholds, return_window_closes, warranty_ends
from aftersales.domain.refunds import LineFacts, compute_refund
from aftersales.domain.stages import next_step_due
from aftersales.domain.tickets import ticket_number
from aftersales.seeding.catalog import CUSTOMER_WORDS
from aftersales.seeding.timelines import Event, timeline_for

CURRENCY = "CNY"
REASON_WEIGHTS = [12, 18, 10, 12, 8, 25, 8, 7]  # in ReasonCode order; no longer needed is the commonest
# Random tickets are on card, wallet and gift-card orders: bank transfers come only with cash-on-delivery stories.
DRAWN_METHODS = (RefundMethod.ORIGINAL_PAYMENT, RefundMethod.STORE_CREDIT)
METHOD_WEIGHTS = [75, 25]  # in DRAWN_METHODS order
# Whatever the review rule says, a ticket that ended up under review or rejected went through a specialist.
REVIEWED_STATUSES = (TicketStatus.UNDER_REVIEW, TicketStatus.REJECTED)


class SeedLine(NamedTuple):
    """A delivered order line a ticket can be about, with what the rules need to know of it."""

    order_id: str
    line_no: int
    customer_id: str
    delivered_at: datetime
    returnable: bool
    repairable: bool
    return_window_days: int
    warranty_months: int
    facts: LineFacts


class Plan(NamedTuple):
    """A ticket a generator intends: on which line, of which kind, ending in which status, opened when."""

    line: SeedLine
    kind: TicketKind
    status: TicketStatus
    reason: ReasonCode
    method: RefundMethod | None
    created: datetime


class Scheduled(NamedTuple):
    """A plan with its ticket number and how many tickets its customer opened in the review window before it."""

    plan: Plan
    ticket_id: str
    recent: int


def seed_line(
    order: dict[str, Any], line: dict[str, Any], product: dict[str, Any], category: CategoryPolicy, goods_minor: int
) -> SeedLine:
    """A delivered line, from its rows, priced by its category's policy; `goods_minor` is what its order paid."""
    facts = LineFacts(
        unit_price_minor=line["unit_price_minor"],
        quantity=line["quantity"],
        discount_minor=line["discount_minor"],
        order_goods_minor=goods_minor,
        shipping_fee_minor=order["shipping_fee_minor"],
        restocking_fee_bps=category.restocking_fee_bps,
    )
    return SeedLine(
        order_id=order["id"],
        line_no=line["line_no"],
        customer_id=order["customer_id"],
        delivered_at=order["delivered_at"],
        returnable=product["returnable"],
        repairable=product["repairable"],
        return_window_days=category.return_window_days,
        warranty_months=product["warranty_months"],
        facts=facts,
    )


def draw_reason(rng: random.Random, kind: TicketKind) -> ReasonCode:
    """A reason that fits the kind (repairs are for faults)."""
    if kind is TicketKind.REPAIR:
        return ReasonCode.DEFECTIVE
    return rng.choices(list(ReasonCode), weights=REASON_WEIGHTS)[0]


def draw_method(rng: random.Random, kind: TicketKind) -> RefundMethod | None:
    """A refund method for refund kinds, none otherwise."""
    if not kind.refunds:
        return None
    return rng.choices(DRAWN_METHODS, weights=METHOD_WEIGHTS)[0]


def open_for_days(line: SeedLine, kind: TicketKind) -> float:
    """Days after delivery in which a `kind` ticket can be opened: the return window, or the warranty for repairs."""
    if kind is TicketKind.REPAIR:
        closes = warranty_ends(line.delivered_at, line.warranty_months)
    else:
        closes = return_window_closes(line.delivered_at, line.return_window_days)
    return (closes - line.delivered_at).total_seconds() / 86400


def schedule(
    plans: Iterable[Plan], thresholds: Thresholds, numbered: dict[int, int] | None = None
) -> tuple[list[Scheduled], dict[int, int]]:
    """Plans in creation order, numbered per year; and the last number of each year, for the ticket counters.

    `numbered` holds the last number each year already handed out, for plans numbered after an earlier batch; their
    customers must have no tickets in that batch, as the recent-ticket counts see only these plans.
    """
    sequences: dict[int, int] = dict(numbered or {})
    opened: dict[str, list[datetime]] = {}  # each customer's creation times so far, in order
    scheduled = []
    for plan in sorted(plans, key=lambda p: p.created):
        year, customer = plan.created.year, plan.line.customer_id
        sequences[year] = sequences.get(year, 0) + 1
        times = opened.setdefault(customer, [])
        # What the live service counts when this ticket opens: the customer's tickets opened in the window before.
        recent = len(times) - bisect_left(times, plan.created - thresholds.review_window)
        times.append(plan.created)
        scheduled.append(Scheduled(plan, ticket_number(year, sequences[year]), recent))
    return scheduled, sequences


def build(
    rng: random.Random, ticket: Scheduled, anchor: datetime, thresholds: Thresholds
) -> tuple[dict[str, Any], list[Event]]:
    """The ticket's row (times as datetimes) and its timeline, drawn from `rng` in one fixed order."""
    plan = ticket.plan
    line, kind, status = plan.line, plan.kind, plan.status
    quantity = rng.randint(1, line.facts.quantity)
    refund = compute_refund(line.facts, quantity, plan.reason, kind)
    review = needs_review(
        refund.total_minor, thresholds.review_above_minor, ticket.recent, thresholds.review_recent_tickets
    )
    events = timeline_for(kind, status, plan.created, rng, anchor, review or status in REVIEWED_STATUSES)
    row = {
        "id": ticket.ticket_id,
        "order_id": line.order_id,
        "line_no": line.line_no,
        "customer_id": line.customer_id,
        "quantity": quantity,
        "kind": kind.value,
        "reason_code": plan.reason.value,
        "description": rng.choice(CUSTOMER_WORDS[plan.reason.value]),
        "refund_method": plan.method.value if plan.method else None,
        "currency": CURRENCY,
        "item_amount_minor": refund.item_amount_minor,
        "restocking_fee_minor": refund.restocking_fee_minor,
        "shipping_refund_minor": refund.shipping_refund_minor,
        "refund_total_minor": refund.total_minor,
        "status": status.value,
        "created_by": "seed",
        "created_at": plan.created,
        "updated_at": events[-1][0],
    }
    return row, events


def keep_current(row: dict[str, Any], events: list[Event], anchor: datetime) -> tuple[dict[str, Any], list[Event]]:
    """A story's ticket moved forward whole days, if need be, so its next step is due after the anchor's day.

    A story shows a situation on the day the world is loaded (the anchor's day): a ticket under review there is
    waiting for a decision, not a day late. Whole days keep each time of day; the ticket keeps its number, so no
    other row changes.
    """
    due = next_step_due(TicketKind(row["kind"]), TicketStatus(row["status"]), row["updated_at"])
    ahead = anchor.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)
    if due is None or due >= ahead:
        return row, events
    shift = timedelta(days=-((due - ahead) // timedelta(days=1)))
    if row["updated_at"] + shift > anchor - timedelta(hours=1):
        raise RuntimeError(f"story ticket {row['id']} cannot be opened late enough for its next step to lie ahead")
    moved = {**row, "created_at": row["created_at"] + shift, "updated_at": row["updated_at"] + shift}
    return moved, [(at + shift, event, actor, note) for at, event, actor, note in events]

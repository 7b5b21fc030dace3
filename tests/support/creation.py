"""Opening tickets in tests: the default policy, two callers, requests for the service and arguments for the tool."""

import itertools
import uuid
from datetime import datetime, timedelta
from typing import Any

from aftersales.app import App
from aftersales.clock import now
from aftersales.domain.callers import ALL_SCOPES, Caller
from aftersales.domain.creation import TicketRequest
from aftersales.domain.enums import ReasonCode, RefundMethod, TicketKind
from aftersales.services.creation import CreateResult, CreationPolicy, Decisions, create_ticket

# The policy the default settings give the tool.
POLICY = CreationPolicy(
    quote_ttl=timedelta(minutes=30),
    idempotency_ttl=timedelta(hours=24),
    confirm_above_minor=50000,
    review_above_minor=300000,
    review_recent_tickets=3,
    review_window=timedelta(days=30),
)
ALICE = Caller("alice-bot", frozenset(ALL_SCOPES))
BOB = Caller("bob-bot", frozenset(ALL_SCOPES))
CONFIRMED = Decisions(confirmation="person")
_keys = itertools.count()


def ticket_request(order_id: str = "O-2026-000001", **changes: Any) -> TicketRequest:
    """A return of one unit of line 1, refunded to the original payment, under a key no other request uses."""
    values: dict[str, Any] = dict(
        order_id=order_id,
        line_no=1,
        quantity=1,
        kind=TicketKind.RETURN_AND_REFUND,
        reason=ReasonCode.DEFECTIVE,
        description="It stopped working after two days.",
        refund_method=RefundMethod.ORIGINAL_PAYMENT,
        quote_id=None,
        idempotency_key=f"key-{next(_keys):08d}",
    )
    return TicketRequest(**(values | changes))


def create(
    app: App,
    request: TicketRequest,
    caller: Caller = ALICE,
    decisions: Decisions = CONFIRMED,
    at: datetime | None = None,
) -> CreateResult:
    """Open a ticket through the service on the app's database, as `caller`, at `at` (now by default)."""
    return create_ticket(app.uow(write=True), caller, request, decisions, at or now(), POLICY)


def create_arguments(order_id: str, **changes: Any) -> dict[str, Any]:
    """after_sales_create_ticket's arguments for a return of line 1 without a refund method, under a fresh key."""
    return {
        "order_id": order_id,
        "line_no": 1,
        "kind": "return_and_refund",
        "reason_code": "defective",
        "description": "It stopped working after two days.",
        "idempotency_key": str(uuid.uuid4()),
    } | changes

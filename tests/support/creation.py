"""Opening tickets in tests: the default policy, requests for the service and arguments for the tool."""

import itertools
import uuid
from datetime import datetime
from typing import Any

from aftersales.app import App
from aftersales.clock import now
from aftersales.domain.callers import Caller
from aftersales.domain.creation import TicketRequest
from aftersales.domain.enums import ReasonCode, RefundMethod, TicketKind
from aftersales.mcp.tools.create_ticket import creation_policy
from aftersales.services.creation import Decisions, create_ticket
from aftersales.services.views import CreateResult
from aftersales.settings import Settings
from tests.support.clients import ALICE

# The policy the default settings give the tool, made the way the tool makes it: the thresholds default to the
# shop's (domain/policy.py THRESHOLDS), the lifetimes to the settings'. model_construct reads no environment.
POLICY = creation_policy(Settings.model_construct())
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

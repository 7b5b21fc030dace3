"""Cancelling tickets in tests: requests for the service and arguments for the tool, each under a fresh key."""

import itertools
import uuid
from datetime import datetime
from typing import Any

from aftersales.app import App
from aftersales.clock import now
from aftersales.domain.callers import Caller
from aftersales.domain.cancellation import CancelRequest
from aftersales.domain.tickets import Confirmation
from aftersales.services.cancellation import cancel_ticket
from aftersales.services.views import CancelResult
from tests.support.clients import ALICE
from tests.support.creation import POLICY

WORDS = "I found it cheaper elsewhere and will keep the one I have."
_keys = itertools.count()


def cancel_request(ticket_id: str, **changes: Any) -> CancelRequest:
    """A cancellation of `ticket_id` in the customer's words, under a key no other request uses."""
    values: dict[str, Any] = dict(ticket_id=ticket_id, reason=WORDS, idempotency_key=f"cancel-{next(_keys):08d}")
    return CancelRequest(**(values | changes))


def cancel(
    app: App,
    request: CancelRequest,
    caller: Caller = ALICE,
    confirmation: Confirmation = "person",
    at: datetime | None = None,
) -> CancelResult:
    """Cancel through the service on the app's database, as `caller`, at `at` (now by default)."""
    return cancel_ticket(app.uow(write=True), caller, request, confirmation, at or now(), POLICY.idempotency_ttl)


def cancel_arguments(ticket_id: str, **changes: Any) -> dict[str, Any]:
    """after_sales_cancel_ticket's arguments for `ticket_id`, under a fresh key."""
    return {"ticket_id": ticket_id, "reason": WORDS, "idempotency_key": str(uuid.uuid4())} | changes

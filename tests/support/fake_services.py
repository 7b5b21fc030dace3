"""The use cases on a fake unit of work with the tests' defaults: open a ticket, estimate a refund."""

from datetime import datetime

from aftersales.clock import now
from aftersales.domain.callers import Caller
from aftersales.domain.creation import TicketRequest
from aftersales.domain.enums import ReasonCode
from aftersales.services.creation import Decisions, create_ticket
from aftersales.services.quotes import estimate_refund
from aftersales.services.views import CreateResult, QuoteView
from tests.support.clients import ALICE
from tests.support.creation import CONFIRMED, POLICY
from tests.support.fakes import FakeDatabase, FakeUnitOfWork


def create(
    database: FakeDatabase,
    request: TicketRequest,
    caller: Caller = ALICE,
    decisions: Decisions = CONFIRMED,
    at: datetime | None = None,
) -> CreateResult:
    """Open a ticket through the service on the fake database, as `caller`, at `at` (now by default)."""
    return create_ticket(FakeUnitOfWork(database), caller, request, decisions, at or now(), POLICY)


def estimate(
    database: FakeDatabase,
    order_id: str,
    reason: ReasonCode = ReasonCode.DEFECTIVE,
    quantity: int = 1,
    line_no: int = 1,
    caller: Caller = ALICE,
    at: datetime | None = None,
) -> QuoteView:
    """Estimate a refund through the service on the fake database, stored as `caller`'s quote."""
    return estimate_refund(
        FakeUnitOfWork(database), caller, order_id, line_no, quantity, reason, at or now(), POLICY.quote_ttl
    )

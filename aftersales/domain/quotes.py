"""Quote handles: a refund estimate pinned for the caller who asked, until it expires."""

from dataclasses import dataclass
from datetime import datetime

from aftersales.domain.enums import ReasonCode
from aftersales.domain.refunds import Breakdown


@dataclass(frozen=True)
class Quote:
    """The amounts of one estimate, owned by a caller and usable until `expires_at`."""

    id: str
    owner: str
    order_id: str
    line_no: int
    quantity: int
    reason: ReasonCode
    currency: str
    refund: Breakdown
    created_at: datetime
    expires_at: datetime

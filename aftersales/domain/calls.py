"""Tool calls as the audit and the metrics count them: names, outcomes, retries and latency percentiles."""

from datetime import datetime, timedelta
from typing import cast

from aftersales.domain.arithmetic import Number
from aftersales.domain.enums import Channel, values

QUERY_TICKET = "after_sales_query_ticket"
ESTIMATE_REFUND = "after_sales_estimate_refund"
CREATE_TICKET = "after_sales_create_ticket"
CANCEL_TICKET = "after_sales_cancel_ticket"
FIND_ORDERS = "after_sales_find_orders"
GET_ORDER = "after_sales_get_order"
LIST_TICKETS = "after_sales_list_tickets"
TOOL_NAMES = (  # in the order tools/list shows them
    QUERY_TICKET,
    ESTIMATE_REFUND,
    CREATE_TICKET,
    FIND_ORDERS,
    GET_ORDER,
    LIST_TICKETS,
    CANCEL_TICKET,
)
WRITES = (CREATE_TICKET, CANCEL_TICKET)  # the tools that change what the customer sees
UNKNOWN = "unknown"  # what the audit and the metrics say for any name or value outside their fixed sets

OUTCOMES = ("ok", "tool_error", "protocol_error", "input_required")
FAILED = ("tool_error", "protocol_error")
ARGUMENT_ERRORS = ("invalid_arguments", "unknown_tool")  # error kinds of calls whose arguments failed validation
RETRY_KINDS = ("input_required", "replay", "repeat_after_failure")
# Tickets by the channel they came from: the channels, and UNKNOWN for a call that did not say (or said nonsense).
CHANNELS = (*values(Channel), UNKNOWN)
# What a write's result outcome did to a ticket, as the metrics count it.
TICKET_CHANGES = {(CREATE_TICKET, "created"): "opened", (CANCEL_TICKET, "cancelled"): "cancelled"}
# A call repeats a failure when the same caller's previous call of the same tool failed at most this long before.
REPEAT_WINDOW = timedelta(minutes=5)
PRECISION = 10_000  # percentile fractions are taken in ten-thousandths, so the rank is exact integer arithmetic


def tool_label(name: object) -> str:
    """`name` if this server has a tool by that name, else UNKNOWN: callers cannot invent audit values or series."""
    return name if isinstance(name, str) and name in TOOL_NAMES else UNKNOWN


def channel_label(value: object) -> str:
    """`value` if it is a channel, else UNKNOWN: a bounded label set whatever the caller sent."""
    return value if isinstance(value, str) and value in CHANNELS[:-1] else UNKNOWN


def repeats_failure(previous_failure: datetime | None, at: datetime) -> bool:
    """Whether a call at `at` repeats a failure, given when the previous call (of that caller and tool) failed."""
    return previous_failure is not None and at - previous_failure <= REPEAT_WINDOW


def nearest_rank(count: Number, fraction: float) -> Number:
    """The 1-based rank of the nearest-rank percentile, ceil(count × fraction): for ints and SQL expressions alike.

    This is the project's one percentile definition: the p-th percentile of n values is the value at this rank
    in ascending order (p50 of 1..4 is 2, p95 of 1..20 is 19, any percentile of one value is that value).
    """
    parts = round(fraction * PRECISION)
    if not 0 < parts <= PRECISION:
        raise ValueError(f"a percentile fraction must be above 0 and at most 1, got {fraction}")
    # The Protocol's operators return Any (an int's give an int, a column's a SQL expression): name the kind.
    return cast(Number, (count * parts + (PRECISION - 1)) // PRECISION)


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile of `values` (0 when there are none)."""
    if not values:
        return 0.0
    return sorted(values)[nearest_rank(len(values), fraction) - 1]

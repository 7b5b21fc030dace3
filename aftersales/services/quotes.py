"""Estimating refunds, and the quote handles that pin an estimate for its owner."""

from datetime import datetime, timedelta

from aftersales.clock import iso
from aftersales.domain.callers import Caller
from aftersales.domain.eligibility import LineContext, allowed_refund_methods, check_estimate, policy_notes
from aftersales.domain.enums import ReasonCode, TicketKind
from aftersales.domain.errors import HandleExpired, NotFound
from aftersales.domain.money import format_money
from aftersales.domain.quotes import Quote
from aftersales.domain.refunds import Breakdown, compute_refund
from aftersales.durations import describe_duration
from aftersales.ids import new_id
from aftersales.services.housekeeping import Occasionally
from aftersales.services.lines import line_context
from aftersales.services.ports.unit_of_work import UnitOfWork
from aftersales.services.views import ItemView, QuoteView

# Expired quotes stay answerable as "expired" this long before they are purged.
EXPIRED_RETENTION = timedelta(days=7)
PURGE = Occasionally()


def estimate_refund(
    uow: UnitOfWork,
    caller: Caller,
    order_id: str,
    line_no: int,
    quantity: int,
    reason: ReasonCode,
    now: datetime,
    ttl: timedelta,
) -> QuoteView:
    """Check the policy, compute the refund of returning `quantity` units, and store it as the caller's quote."""
    with uow:
        line = line_context(uow, order_id, line_no)
        check_estimate(line, quantity, now)
        breakdown = compute_refund(line.facts, quantity, reason, TicketKind.RETURN_AND_REFUND)
        quote = Quote(
            id=new_id(),
            owner=caller.id,
            order_id=order_id,
            line_no=line_no,
            quantity=quantity,
            reason=reason,
            currency=line.currency,
            refund=breakdown,
            created_at=now,
            expires_at=now + ttl,
        )
        uow.quotes.add(quote)
        # Purging lazily here keeps the table small without a scheduler; once a minute is plenty.
        if PURGE.due(now):
            uow.quotes.purge_expired_before(now - EXPIRED_RETENTION)
        uow.commit()
        return quote_view(quote.id, quote.expires_at, line, quantity, reason, breakdown)


def quote_view(
    quote_id: str, expires_at: datetime, line: LineContext, quantity: int, reason: ReasonCode, breakdown: Breakdown
) -> QuoteView:
    """What after_sales_estimate_refund answers for a quote of `quantity` units of `line`."""
    return QuoteView(
        quote_id=quote_id,
        expires_at=iso(expires_at),
        order_id=line.order_id,
        line_no=line.line_no,
        quantity=quantity,
        reason_code=reason,
        item=ItemView(sku=line.sku, name=line.product_name, quantity=quantity),
        item_amount=breakdown.item_amount_minor,
        restocking_fee=breakdown.restocking_fee_minor,
        shipping_refund=breakdown.shipping_refund_minor,
        total=breakdown.total_minor,
        currency=line.currency,
        total_display=format_money(breakdown.total_minor, line.currency),
        refund_methods_allowed=allowed_refund_methods(line.payment_method),
        policy_notes=policy_notes(line, reason, breakdown),
    )


def quote_for_use(uow: UnitOfWork, caller: Caller, quote_id: str, now: datetime, ttl: timedelta) -> Quote:
    """The caller's unexpired quote; another caller's quote answers exactly like an unknown one."""
    quote = uow.quotes.get_owned(quote_id.lower(), caller.id)  # ids are issued lower-case; accept either
    held = describe_duration(ttl)
    if quote is None:
        raise NotFound(
            f'No quote "{quote_id}" is available to you.',
            f"Quotes come from after_sales_estimate_refund, belong to the caller who asked, and are held {held}.",
            "Call after_sales_estimate_refund again for a fresh quote, then retry with its quote_id.",
        )
    if now >= quote.expires_at:
        raise HandleExpired(
            f"Quote {quote_id} expired at {quote.expires_at:%H:%M} UTC on {quote.expires_at:%Y-%m-%d}.",
            f"Quotes are held {held}.",
            "Call after_sales_estimate_refund again for a fresh quote, then retry.",
        )
    return quote

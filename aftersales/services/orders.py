"""Finding a customer's orders, and reading one order with what each of its lines allows now."""

from collections import defaultdict
from datetime import datetime

from aftersales.clock import iso
from aftersales.domain.calls import FIND_ORDERS
from aftersales.domain.eligibility import LineContext, allowed_refund_methods, ticket_options
from aftersales.domain.enums import Channel, OrderStatus, PaymentMethod
from aftersales.domain.errors import AfterSalesError, NotFound
from aftersales.domain.lookups import CustomerKey, customer_key
from aftersales.domain.money import format_money
from aftersales.domain.paging import Listing, Position, cut
from aftersales.domain.refunds import paid_minor
from aftersales.security.cursors import SignedCursors
from aftersales.services.lines import describe_lines, order_lines, unknown_order
from aftersales.services.lookup_views import KindOption, LineView, OrdersPage, OrderSummary, OrderView
from aftersales.services.ports.rows import OrderRow
from aftersales.services.ports.unit_of_work import UnitOfWork


def find_orders(
    uow: UnitOfWork,
    email: str | None,
    phone: str | None,
    customer_id: str | None,
    limit: int,
    cursor: str | None,
    cursors: SignedCursors,
) -> OrdersPage:
    """A page of the orders of the customer one key names, newest first.

    Nothing found on the first page is one error, whatever the reason: an email or phone no account holds and an
    account without orders answer alike, so the answer never tells whether an email or phone is registered.
    """
    key = customer_key(FIND_ORDERS, email, phone, customer_id)
    listing = Listing(FIND_ORDERS, f"{key.field}:{key.value}")
    after = cursors.read(listing, cursor) if cursor is not None else None
    with uow:
        rows, more = cut(uow.listings.orders_of(key, after, limit), limit, _position)
        if not rows and after is None:
            raise _nothing_found(key)
        names: dict[str, list[tuple[int, str, int]]] = defaultdict(list)
        for line in uow.listings.line_names([row.id for row in rows]):
            names[line.order_id].append((line.line_no, line.name, line.quantity))
    orders = [
        OrderSummary(
            order_id=row.id,
            customer_id=row.customer_id,
            placed_at=iso(row.placed_at),
            delivered_at=iso(row.delivered_at) if row.delivered_at else None,
            status=OrderStatus(row.status),
            channel=Channel(row.channel),
            items=describe_lines(names[row.id]),
        )
        for row in rows
    ]
    return OrdersPage(
        orders=orders,
        next_cursor=cursors.write(listing, more) if more else None,
        next_step=_orders_next_step(key, bool(rows), more is not None),
    )


def get_order(uow: UnitOfWork, order_id: str, now: datetime) -> OrderView:
    """One order with every line, and for each line which ticket kinds the rules accept at `now` and why not."""
    with uow:
        header = uow.listings.order(order_id)
        if header is None:
            raise unknown_order(order_id)
        lines = order_lines(uow, order_id)
    views = [_line_view(line, now) for line in lines]
    return OrderView(
        order_id=header.id,
        customer_id=header.customer_id,
        status=OrderStatus(header.status),
        channel=Channel(header.channel),
        payment_method=PaymentMethod(header.payment_method),
        refund_methods_allowed=allowed_refund_methods(PaymentMethod(header.payment_method)),
        currency=header.currency,
        placed_at=iso(header.placed_at),
        delivered_at=iso(header.delivered_at) if header.delivered_at else None,
        as_of=iso(now),
        lines=views,
        next_step=_order_next_step(views),
    )


def why_not(refusal: AfterSalesError) -> str:
    """A refusal as an option states it: what stands in the way and the rule (the tools' next step is theirs)."""
    return f"{refusal.what} {refusal.rule}"


def _line_view(line: LineContext, now: datetime) -> LineView:
    """A line with its facts and the verdict of `ticket_options` on every kind."""
    paid = paid_minor(line.facts.unit_price_minor, line.facts.quantity, line.facts.discount_minor)
    return LineView(
        line_no=line.line_no,
        sku=line.sku,
        name=line.product_name,
        category=line.category_name,
        quantity=line.facts.quantity,
        paid=paid,
        paid_display=format_money(paid, line.currency),
        units_held=line.committed_quantity,
        units_available=line.returnable_quantity,
        return_window_ends=iso(line.window_closes) if line.window_closes else None,
        warranty_ends=iso(line.warranty_ends) if line.warranty_ends else None,
        open_ticket_id=line.open_ticket_id,
        options=[
            KindOption(
                kind=kind,
                possible=refusal is None,
                why_not=None if refusal is None else why_not(refusal),
                why_not_code=None if refusal is None else refusal.code,
            )
            for kind, refusal in ticket_options(line, now).items()
        ],
    )


def _order_next_step(lines: list[LineView]) -> str:
    """What to do with an order's options."""
    if any(option.possible for line in lines for option in line.options):
        return (
            "Offer the customer only the kinds marked possible, for at most units_available units. For refund_only "
            "or return_and_refund call after_sales_estimate_refund with this order_id and the line_no first; for "
            "exchange or repair call after_sales_create_ticket. For a line with an open ticket, call "
            "after_sales_query_ticket with open_ticket_id."
        )
    return (
        "No ticket can be opened on this order now: tell the customer why, in the words of each option's why_not. "
        "For a line with an open ticket, call after_sales_query_ticket with open_ticket_id."
    )


def _orders_next_step(key: CustomerKey, shown: bool, more: bool) -> str:
    """What to do with a page of orders."""
    if not shown:
        return "The earlier pages held every order of this customer; ask them which of those they mean."
    step = "Ask the customer which order they mean (by date and items), then call after_sales_get_order with its "
    step += "order_id."
    if more:
        step += f" Older orders follow: to see them, call {FIND_ORDERS} again with the same {key.field} and cursor "
        step += "set to next_cursor."
    return step


def _position(row: OrderRow) -> Position:
    return Position(row.placed_at, row.id)


def _nothing_found(key: CustomerKey) -> NotFound:
    """The one answer for an unknown email, phone or customer id and for a customer without orders."""
    return NotFound(
        f"No orders were found for {key.described}.",
        "Orders are found by the email address or mobile number on the customer's account, or by customer_id; "
        "this answer is the same whether no account uses the value or the account has no orders.",
        "Ask the customer for another email address or mobile number they may have ordered with, or for the order "
        "number from their confirmation (then call after_sales_get_order).",
    )

"""Reading tickets."""

from aftersales.clock import iso
from aftersales.domain.calls import LIST_TICKETS
from aftersales.domain.enums import Channel, RefundMethod, TicketKind, TicketStatus
from aftersales.domain.errors import NotFound
from aftersales.domain.lookups import TicketScope, ticket_scope
from aftersales.domain.money import format_money
from aftersales.domain.paging import Listing, Position, cut
from aftersales.domain.stages import next_step, stage_of
from aftersales.domain.tickets import TimelineEntry
from aftersales.security.cursors import SignedCursors
from aftersales.services.lines import unknown_order
from aftersales.services.lookup_views import TicketsPage
from aftersales.services.ports.rows import TicketDetails
from aftersales.services.ports.unit_of_work import UnitOfWork
from aftersales.services.views import EventView, ItemView, RefundView, TicketSummary, TicketView

TIMELINE_LIMIT = 10


def query_ticket(uow: UnitOfWork, ticket_id: str) -> TicketView:
    """One ticket by number, with stage, refund, next step and the latest events."""
    with uow:
        return ticket_view(uow, ticket_id)


def ticket_view(uow: UnitOfWork, ticket_id: str) -> TicketView:
    """Build the view of a ticket (shared by query and create) from one statement."""
    found = uow.tickets.view(ticket_id, TIMELINE_LIMIT)
    if found is None:
        raise NotFound(
            f'No ticket numbered "{ticket_id}" exists.',
            "Ticket numbers are issued by after_sales_create_ticket and appear in the customer's confirmation.",
            "Check the number with the customer; if they have none, ask for the order number instead.",
        )
    return view_of(found.details, found.events, found.total)


def channel_of(stored: str | None) -> Channel | None:
    """A stored channel as the views show it (None: the caller did not say)."""
    return Channel(stored) if stored else None


def view_of(ticket: TicketDetails, newest: list[TimelineEntry], total: int) -> TicketView:
    """A ticket's view from its fields, its newest events oldest first, and how many events its timeline holds."""
    return TicketView(
        **dict(ticket_summary(ticket)),
        timeline=[
            EventView(at=iso(e.occurred_at), event=e.type, actor=e.actor, note=e.note, channel=channel_of(e.channel))
            for e in newest
        ],
        timeline_total=total,
    )


def ticket_summary(ticket: TicketDetails) -> TicketSummary:
    """Where a ticket stands and its next step (shared by a ticket's view and every list of tickets)."""
    kind, status = TicketKind(ticket.kind), TicketStatus(ticket.status)
    method = RefundMethod(ticket.refund_method) if ticket.refund_method else None
    refund = None
    if kind.refunds:
        refund = RefundView(
            amount=ticket.refund_total_minor,
            currency=ticket.currency,
            method=method,
            display=format_money(ticket.refund_total_minor, ticket.currency),
        )
    return TicketSummary(
        ticket_id=ticket.id,
        order_id=ticket.order_id,
        item=ItemView(sku=ticket.sku, name=ticket.name, quantity=ticket.quantity),
        kind=kind,
        status=status,
        stage=stage_of(kind, status),
        refund=refund,
        channel=channel_of(ticket.channel),
        created_at=iso(ticket.created_at),
        updated_at=iso(ticket.updated_at),
        next_step=next_step(kind, status, ticket.updated_at, refund.display if refund else None, method),
    )


def list_tickets(
    uow: UnitOfWork,
    customer_id: str | None,
    order_id: str | None,
    limit: int,
    cursor: str | None,
    cursors: SignedCursors,
) -> TicketsPage:
    """A page of the tickets of one customer or one order, newest first, each as a ticket view summarises it.

    An unknown order number is an error, as it is for every tool taking one; a customer id with no tickets answers
    with an empty page whether or not the customer exists.
    """
    scope = ticket_scope(LIST_TICKETS, customer_id, order_id)
    listing = Listing(LIST_TICKETS, f"{scope.field}:{scope.value}")
    after = cursors.read(listing, cursor) if cursor is not None else None
    with uow:
        rows, more = cut(uow.listings.tickets_of(scope, after, limit), limit, _position)
        if not rows and after is None and scope.field == "order_id" and uow.listings.order(scope.value) is None:
            raise unknown_order(scope.value)
    return TicketsPage(
        tickets=[ticket_summary(row) for row in rows],
        next_cursor=cursors.write(listing, more) if more else None,
        next_step=_tickets_next_step(scope, bool(rows) or after is not None, more is not None),
    )


def _tickets_next_step(scope: TicketScope, any_shown: bool, more: bool) -> str:
    """What to do with a page of tickets."""
    whose = f"customer {scope.value}" if scope.field == "customer_id" else f"order {scope.value}"
    if not any_shown:
        return (
            f"No tickets were found for {whose}. If the customer says they opened one, ask for its number "
            "(T-YYYY-NNNN) and call after_sales_query_ticket; to open one, call after_sales_get_order first."
        )
    step = "Tell the customer each ticket's stage and next step; call after_sales_query_ticket with a ticket_id "
    step += "for its timeline."
    if more:
        step += f" Older tickets follow: call {LIST_TICKETS} again with the same {scope.field} and cursor set to "
        step += "next_cursor."
    return step


def _position(row: TicketDetails) -> Position:
    return Position(row.created_at, row.id)

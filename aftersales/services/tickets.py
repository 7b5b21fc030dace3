"""Reading tickets."""

from aftersales.clock import iso
from aftersales.domain.enums import RefundMethod, TicketKind, TicketStatus
from aftersales.domain.errors import NotFound
from aftersales.domain.money import format_money
from aftersales.domain.stages import next_step, stage_of
from aftersales.services.views import EventView, ItemView, RefundView, TicketView
from aftersales.storage.unit_of_work import UnitOfWork

TIMELINE_LIMIT = 10


def query_ticket(uow: UnitOfWork, ticket_id: str) -> TicketView:
    """One ticket by number, with stage, refund, next step and the latest events."""
    with uow:
        return ticket_view(uow, ticket_id)


def ticket_view(uow: UnitOfWork, ticket_id: str) -> TicketView:
    """Build the view of a ticket (shared by query and create) from two indexed queries."""
    ticket = uow.tickets.details(ticket_id)
    if ticket is None:
        raise NotFound(
            f'No ticket numbered "{ticket_id}" exists.',
            "Ticket numbers are issued by after_sales_create_ticket and appear in the customer's confirmation.",
            "Check the number with the customer; if they have none, ask for the order number instead.",
        )
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
    events, total = uow.tickets.timeline(ticket_id, TIMELINE_LIMIT)
    return TicketView(
        ticket_id=ticket.id,
        order_id=ticket.order_id,
        item=ItemView(sku=ticket.sku, name=ticket.name, quantity=ticket.quantity),
        kind=kind,
        status=status,
        stage=stage_of(kind, status),
        refund=refund,
        created_at=iso(ticket.created_at),
        updated_at=iso(ticket.updated_at),
        next_step=next_step(kind, status, ticket.updated_at, refund.display if refund else None, method),
        timeline=[EventView(at=iso(e.occurred_at), event=e.type, actor=e.actor, note=e.note) for e in events],
        timeline_total=total,
    )

"""Storage's SQL says what the domain's rules say: units held, the open ticket, what an order paid."""

from sqlalchemy import update

from aftersales.domain.enums import TicketKind, TicketStatus
from aftersales.domain.policy import holds_units
from aftersales.domain.refunds import paid_minor
from aftersales.storage.models import OrderLine, Ticket


def test_the_units_a_line_holds_and_its_open_ticket_follow_the_domain_for_every_kind_and_status(app, stories):
    story = stories["ticket_awaiting_return"]
    order_id, ticket_id = story["order_id"], story["ticket_id"]
    for kind in TicketKind:
        for status in TicketStatus:
            with app.uow() as uow:
                uow.session.execute(update(Ticket).where(Ticket.id == ticket_id).values(kind=kind, status=status))
                facts = uow.orders.line_facts(order_id, 1)
                quantity = uow.session.get(Ticket, ticket_id).quantity
            assert facts.committed_quantity == (quantity if holds_units(kind, status) else 0), (kind, status)
            assert facts.open_ticket_id == (ticket_id if status.is_open else None), (kind, status)


def test_an_orders_goods_total_is_the_sum_of_what_its_lines_paid(app, baseline):
    lines = [line for line in baseline.tables["order_lines"] if line["line_no"] == 3][:5]
    assert lines
    with app.uow() as uow:
        for line in lines:
            order_lines = uow.session.query(OrderLine).filter_by(order_id=line["order_id"]).all()
            expected = sum(paid_minor(x.unit_price_minor, x.quantity, x.discount_minor) for x in order_lines)
            assert uow.orders.line_facts(line["order_id"], 1).order_goods_minor == expected

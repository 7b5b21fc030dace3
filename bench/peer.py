"""The peer: the query, the estimate and the create written the usual way on FastMCP, over the same database.

What a team picking FastMCP 4 would write for these three tools: async tools, each handed a SQLAlchemy asyncio
session by FastMCP's `Depends` over an async context manager (its docs' pattern for a database connection), ORM
objects read (eagerly, as asyncio sessions need) and added through it, on SQLAlchemy's default pool and drivers
(aiosqlite on SQLite, psycopg's async mode on PostgreSQL); the guard pattern of FastMCP's docs for the questions of
the two-round create; FastMCP's default middleware and nothing else; served by `mcp.run(transport="http")`. It reuses
the shop's rules and views (aftersales.domain, the view models and the pure view builder of aftersales.services), so
the comparison is of the framework and the usual data access, not of the rules. It has no authentication: every
call is the bench's caller, so it does a little less per call than the server it is compared with.

    .venv/bin/python -m bench.peer --port 8100 --database sqlite:///var/bench/throughput.db
"""

import argparse
import json
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime, timedelta

from fastmcp import Context, FastMCP
from fastmcp.dependencies import Depends
from fastmcp.exceptions import ToolError
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult
from sqlalchemy import func, select, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import joinedload

from aftersales.clock import now
from aftersales.domain.creation import TicketRequest, check_refund_method, differing_fields, needs_review
from aftersales.domain.eligibility import (
    LineContext,
    allowed_refund_methods,
    check_estimate,
    check_ticket,
)
from aftersales.domain.enums import (
    Channel,
    EventType,
    OrderStatus,
    PaymentMethod,
    ReasonCode,
    RefundMethod,
    TicketKind,
    TicketStatus,
)
from aftersales.domain.errors import AfterSalesError
from aftersales.domain.money import format_money
from aftersales.domain.policy import THRESHOLDS, holds_units
from aftersales.domain.refunds import LineFacts, compute_refund, paid_minor
from aftersales.domain.tickets import TimelineEntry, customer_words, ticket_number
from aftersales.services.ports.rows import TicketDetails
from aftersales.services.quotes import quote_view
from aftersales.services.ticket_queries import TIMELINE_LIMIT, view_of
from aftersales.services.views import CreateResult, QuoteView, TicketView
from aftersales.storage.models import IdempotencyRecord, Order, OrderLine, Quote, Ticket, TicketEvent, TicketSequence

CALLER = "bench-bot"  # the caller the bench's tokens name on the server
TOOL = "after_sales_create_ticket"
QUOTE_TTL = timedelta(minutes=30)
KEY_TTL = timedelta(hours=24)
NOT_CREATED = "No ticket was created and nothing was stored."


def build(database_url: str) -> FastMCP:
    """The FastMCP server with the three tools, on the database at `database_url`."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        url = url.set(drivername="sqlite+aiosqlite")  # psycopg, on PostgreSQL, has an async mode of its own
    sessions = async_sessionmaker(create_async_engine(url), expire_on_commit=False)
    mcp = FastMCP("aftersales-peer")

    @asynccontextmanager
    async def database() -> AsyncIterator[AsyncSession]:
        async with sessions() as session:
            yield session

    @mcp.tool
    async def after_sales_query_ticket(ticket_id: str, session: AsyncSession = Depends(database)) -> TicketView:  # noqa: B008
        """Look up one after-sales ticket by its number."""
        ticket = await session.get(Ticket, ticket_id)
        if ticket is None:
            raise ToolError(f'No ticket numbered "{ticket_id}" exists.')
        newest = (
            await session.scalars(
                select(TicketEvent)
                .where(TicketEvent.ticket_id == ticket_id)
                .order_by(TicketEvent.occurred_at.desc(), TicketEvent.id.desc())
                .limit(TIMELINE_LIMIT)
            )
        ).all()
        total = await session.scalar(select(func.count()).where(TicketEvent.ticket_id == ticket_id)) or 0
        return view_of(details(ticket), [entry(event) for event in reversed(newest)], total)

    @mcp.tool
    async def after_sales_estimate_refund(
        order_id: str,
        line_no: int,
        reason_code: ReasonCode,
        quantity: int = 1,
        session: AsyncSession = Depends(database),  # noqa: B008
    ) -> QuoteView:
        """Estimate what returning units of one delivered order line would pay back, pinned as a quote."""
        moment = now()
        line = await line_of(session, order_id, line_no)
        ruled(check_estimate, line, quantity, moment)
        breakdown = compute_refund(line.facts, quantity, reason_code, TicketKind.RETURN_AND_REFUND)
        quote = Quote(
            id=str(uuid.uuid4()),
            owner=CALLER,
            order_id=order_id,
            line_no=line_no,
            quantity=quantity,
            reason_code=reason_code.value,
            currency=line.currency,
            item_amount_minor=breakdown.item_amount_minor,
            restocking_fee_minor=breakdown.restocking_fee_minor,
            shipping_refund_minor=breakdown.shipping_refund_minor,
            total_minor=breakdown.total_minor,
            created_at=moment,
            expires_at=moment + QUOTE_TTL,
        )
        session.add(quote)
        await session.commit()
        return quote_view(quote.id, quote.expires_at, line, quantity, reason_code, breakdown)

    @mcp.tool
    async def after_sales_create_ticket(
        order_id: str,
        line_no: int,
        kind: TicketKind,
        reason_code: ReasonCode,
        description: str,
        idempotency_key: str,
        ctx: Context,
        quantity: int = 1,
        refund_method: RefundMethod | None = None,
        channel: Channel | None = None,
        session: AsyncSession = Depends(database),  # noqa: B008
    ) -> CreateResult | InputRequiredResult:
        """Open an after-sales ticket for one line of a delivered order, once per idempotency key."""
        moment = now()
        request = TicketRequest(
            order_id, line_no, quantity, kind, reason_code, description, refund_method, None, idempotency_key, channel
        )
        replay = await replayed(session, request, moment)
        if replay is not None:
            return replay
        line = await line_of(session, order_id, line_no)
        ruled(check_ticket, line, kind, quantity, moment)
        allowed = allowed_refund_methods(line.payment_method) if kind.refunds else []
        ruled(check_refund_method, kind, refund_method, allowed)
        breakdown = compute_refund(line.facts, quantity, reason_code, kind)
        method = refund_method or (allowed[0] if len(allowed) == 1 else None)
        asks = {}
        if kind.refunds and method is None:
            choices = [m.value for m in allowed if m is not RefundMethod.BANK_TRANSFER]  # no bank-account page here
            asks["refund_method"] = form(
                f"Where should the refund for {line.product_name} (order {order_id}) go?",
                {"refund_method": {"type": "string", "title": "Refund to", "enum": choices}},
            )
        if breakdown.total_minor > THRESHOLDS.confirm_above_minor:
            amount = format_money(breakdown.total_minor, line.currency)
            asks["confirm"] = form(
                f"Open a refund ticket for {quantity} x {line.product_name}, refunding {amount}? Please confirm "
                "with the customer.",
                {"confirm": {"type": "boolean", "title": "Open this refund ticket"}},
            )
        answers = ctx.input_responses
        if asks and not answers:
            return InputRequiredResult(input_requests=asks)
        confirmed = False
        for name in asks:
            answer = (answers or {}).get(name)
            if not isinstance(answer, ElicitResult) or answer.action != "accept" or not answer.content:
                return CreateResult(outcome="not_created", reason=f"No answer to {name}.", next_step=NOT_CREATED)
            if name == "refund_method":
                method = RefundMethod(str(answer.content["refund_method"]))
            elif answer.content.get("confirm") is not True:
                return CreateResult(
                    outcome="not_created", reason="The customer did not confirm.", next_step=NOT_CREATED
                )
            else:
                confirmed = True
        recent = await session.scalar(
            select(func.count())
            .select_from(Ticket)
            .where(Ticket.customer_id == line.customer_id, Ticket.created_at >= moment - THRESHOLDS.review_window)
        )
        review = needs_review(
            breakdown.total_minor, THRESHOLDS.review_above_minor, recent or 0, THRESHOLDS.review_recent_tickets
        )
        drawn = await session.scalar(
            update(TicketSequence)
            .where(TicketSequence.year == moment.year)
            .values(last_value=TicketSequence.last_value + 1)
            .returning(TicketSequence.last_value)
        )
        if drawn is None:
            session.add(TicketSequence(year=moment.year, last_value=1))
            drawn = 1
        ticket = Ticket(
            id=ticket_number(moment.year, drawn),
            order_id=order_id,
            line_no=line_no,
            customer_id=line.customer_id,
            quantity=quantity,
            kind=kind.value,
            reason_code=reason_code.value,
            description=description,
            refund_method=method.value if method else None,
            currency=line.currency,
            item_amount_minor=breakdown.item_amount_minor,
            restocking_fee_minor=breakdown.restocking_fee_minor,
            shipping_refund_minor=breakdown.shipping_refund_minor,
            refund_total_minor=breakdown.total_minor,
            status=(TicketStatus.UNDER_REVIEW if review else TicketStatus.APPROVED).value,
            channel=channel.value if channel else None,
            created_by=CALLER,
            created_at=moment,
            updated_at=moment,
        )
        events = first_events(ticket, confirmed, review)
        view = view_of(details(ticket, line), [entry(event) for event in events], len(events))
        result = CreateResult(
            outcome="created",
            ticket=view,
            next_step=f"Tell the customer their ticket number is {ticket.id}. {view.next_step}",
        )
        try:
            # The models relate no event or key to its ticket, so the ticket goes in first, for their foreign keys.
            session.add(ticket)
            await session.flush()
            session.add_all(events)
            session.add(
                IdempotencyRecord(
                    caller=CALLER,
                    tool=TOOL,
                    key=idempotency_key,
                    arguments=json.dumps(request.arguments(), sort_keys=True),
                    result=result.model_dump_json(),
                    ticket_id=ticket.id,
                    created_at=moment,
                    expires_at=moment + KEY_TTL,
                )
            )
            await session.commit()
        except IntegrityError:
            # The same key, or another ticket on the line, got there first.
            await session.rollback()
            replay = await replayed(session, request, moment)
            if replay is not None:
                return replay
            raise ToolError("Another request changed this order line at the same moment; retry.") from None
        return result

    return mcp


def ruled(check: Callable[..., None], *arguments: object) -> None:
    """Run a rule of the shop's policy; a refusal becomes the tool error FastMCP answers with."""
    try:
        check(*arguments)
    except AfterSalesError as refusal:
        raise ToolError(str(refusal)) from None


def form(message: str, fields: dict[str, object]) -> ElicitRequest:
    """An elicitation of one required field, as the guard pattern asks it."""
    schema = {"type": "object", "properties": fields, "required": list(fields)}
    return ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=schema))  # type: ignore[arg-type]


async def replayed(session: AsyncSession, request: TicketRequest, moment: datetime) -> CreateResult | None:
    """The first result of this idempotency key, if it has one; a key reused for another request is refused."""
    record = await session.scalar(
        select(IdempotencyRecord).where(
            IdempotencyRecord.caller == CALLER,
            IdempotencyRecord.tool == TOOL,
            IdempotencyRecord.key == request.idempotency_key,
            IdempotencyRecord.expires_at > moment,
        )
    )
    if record is None or record.result is None:
        return None
    if differing_fields(json.loads(record.arguments), request.arguments()):
        raise ToolError(f'idempotency_key "{request.idempotency_key}" was already used for a different request.')
    first = CreateResult.model_validate_json(record.result)
    return first.model_copy(update={"outcome": "replayed"})


async def line_of(session: AsyncSession, order_id: str, line_no: int) -> LineContext:
    """What the policy needs about one order line, from its ORM objects (its product and category come joined)."""
    order_and_lines = joinedload(OrderLine.order).selectinload(Order.lines)
    line = await session.get(OrderLine, (order_id, line_no), options=[order_and_lines])
    if line is None:
        raise ToolError(f"Order {order_id} has no line {line_no}.")
    order, product = line.order, line.product
    tickets = (
        await session.scalars(select(Ticket).where(Ticket.order_id == order_id, Ticket.line_no == line_no))
    ).all()
    held = [t for t in tickets if holds_units(TicketKind(t.kind), TicketStatus(t.status))]
    open_ones = [t.id for t in tickets if TicketStatus(t.status).is_open]
    return LineContext(
        order_id=order.id,
        line_no=line.line_no,
        customer_id=order.customer_id,
        order_status=OrderStatus(order.status),
        delivered_at=order.delivered_at,
        payment_method=PaymentMethod(order.payment_method),
        currency=order.currency,
        sku=product.sku,
        product_name=product.name,
        category_name=product.category.name,
        returnable=product.returnable,
        repairable=product.repairable,
        return_window_days=product.category.return_window_days,
        warranty_months=product.warranty_months,
        facts=LineFacts(
            unit_price_minor=line.unit_price_minor,
            quantity=line.quantity,
            discount_minor=line.discount_minor,
            order_goods_minor=sum(paid_minor(x.unit_price_minor, x.quantity, x.discount_minor) for x in order.lines),
            shipping_fee_minor=order.shipping_fee_minor,
            restocking_fee_bps=product.category.restocking_fee_bps,
        ),
        committed_quantity=sum(t.quantity for t in held),
        open_ticket_id=open_ones[0] if open_ones else None,
    )


def details(ticket: Ticket, line: LineContext | None = None) -> TicketDetails:
    """The fields the shared view shows of a ticket row (its product from the line it was opened on, if given)."""
    return TicketDetails(
        id=ticket.id,
        order_id=ticket.order_id,
        quantity=ticket.quantity,
        kind=ticket.kind,
        status=ticket.status,
        refund_method=ticket.refund_method,
        refund_total_minor=ticket.refund_total_minor,
        currency=ticket.currency,
        created_at=ticket.created_at,
        updated_at=ticket.updated_at,
        sku=line.sku if line else ticket.line.sku,
        name=line.product_name if line else ticket.line.product.name,
        channel=ticket.channel,
    )


def entry(event: TicketEvent) -> TimelineEntry:
    """A timeline row as the shared view takes it."""
    return TimelineEntry(event.occurred_at, event.type, event.actor, event.note, event.channel)


def first_events(ticket: Ticket, confirmed: bool, review: bool) -> list[TicketEvent]:
    """The timeline a new ticket starts with, as the server writes it."""
    words = customer_words(ticket.description)
    notes = [(EventType.CREATED, CALLER, f'Opened by {CALLER} for the customer: "{words}"')]
    if confirmed:
        amount = format_money(ticket.refund_total_minor, ticket.currency)
        notes.append((EventType.NOTE, "customer", f"The customer confirmed the refund of {amount} in the client."))
    if review:
        notes.append((EventType.REVIEW_STARTED, "system", "Queued for a specialist's review."))
    else:
        notes.append((EventType.APPROVED, "system", "Approved automatically under the after-sales policy."))
    return [
        TicketEvent(
            ticket_id=ticket.id,
            occurred_at=ticket.created_at,
            type=event.value,
            actor=actor,
            note=note,
            channel=ticket.channel,
        )
        for event, actor, note in notes
    ]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--database", required=True, help="The SQLAlchemy URL of the server's database.")
    args = parser.parse_args()
    # The floor and the server run at log level WARNING too: no access log line per request for any of the three.
    build(args.database).run(transport="http", host="127.0.0.1", port=args.port, show_banner=False, log_level="WARNING")

"""A unit of work over in-memory tables, so the services' rules are tested in milliseconds (cosmicpython's fake).

It declares the services' ports (services.ports) it implements, and mypy checks tests/support, so a port it does
not follow fails type checking. The fake repositories answer from the same domain rules storage builds its SQL from
(holds_units, paid_minor, the closed statuses, repeats_failure, percentile), so a rule test on the fake and an
integration test on a database check one definition.
"""

import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from types import TracebackType
from typing import Any, Self

from aftersales.domain.calls import FAILED, percentile, repeats_failure
from aftersales.domain.creation import KeyRecord
from aftersales.domain.enums import EventType, TicketKind, TicketStatus
from aftersales.domain.policy import holds_units
from aftersales.domain.quotes import Quote
from aftersales.domain.refunds import paid_minor
from aftersales.domain.tickets import NewTicket, TimelineEntry, ticket_number
from aftersales.seeding.generator import World
from aftersales.seeding.loader import shift_for
from aftersales.services.ports import repositories as ports
from aftersales.services.ports.rows import (
    Conflict,
    KeyResult,
    LineFactsRow,
    PayoutRow,
    TicketDetails,
    TicketWithTimeline,
    ToolFigures,
)
from aftersales.services.ports.unit_of_work import UnitOfWork
from aftersales.storage.opening import ticket_row
from tests.support.fake_listings import FakeListings

Row = dict[str, Any]


@dataclass
class Tables:
    """The rows a fake database holds, by table, as the dataset file has them."""

    rows: dict[str, list[Row]] = field(default_factory=dict)
    quotes: dict[str, Quote] = field(default_factory=dict)
    keys: dict[tuple[str, str, str], Row] = field(default_factory=dict)
    payouts: dict[str, Row] = field(default_factory=dict)  # payout requests by id

    @classmethod
    def of(cls, world: World, now: datetime) -> Self:
        """The world's rows with every time moved so its anchor is today, as `aftersales seed load` does."""
        shift = shift_for(world, now)
        rows = {
            name: [{k: v + shift if isinstance(v, datetime) else v for k, v in row.items()} for row in table]
            for name, table in world.tables.items()
        }
        return cls(rows=rows)

    def copy(self) -> "Tables":
        """A copy whose rows can change without touching these (every value in a row is immutable)."""
        rows = {name: [dict(row) for row in table] for name, table in self.rows.items()}
        keys = {key: dict(record) for key, record in self.keys.items()}
        return Tables(rows, dict(self.quotes), keys, {key: dict(row) for key, row in self.payouts.items()})


class FakeDatabase:
    """Committed state; each unit of work works on a copy and writes it back only on commit."""

    def __init__(self, world: World, now: datetime) -> None:
        self.tables = Tables.of(world, now)
        self.commits = 0


class FakeUnitOfWork(UnitOfWork):
    """The unit of work port over a FakeDatabase: rolls back unless committed."""

    def __init__(self, database: FakeDatabase) -> None:
        self.database = database

    def __enter__(self) -> Self:
        self._work = self.database.tables.copy()
        self.tickets = FakeTickets(self._work)
        self.orders = FakeOrders(self._work)
        self.quotes = FakeQuotes(self._work)
        self.idempotency = FakeKeys(self._work)
        self.listings = FakeListings(self._work.rows)
        self.payouts = FakePayouts(self._work)
        self.tool_calls = FakeToolCalls(self._work)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        del self._work

    def commit(self) -> None:
        """Make this unit's work the database's state."""
        self.database.tables = self._work.copy()
        self.database.commits += 1


# mypy checks that a class declared to implement a Protocol has all of its members only where the class is made:
# this line makes that check here, so a repository the port gains and the fake lacks fails type checking.
IMPLEMENTS_THE_PORT: type[UnitOfWork] = FakeUnitOfWork


class FakeTickets(ports.TicketRepository):
    """TicketRepository over the tables."""

    def __init__(self, tables: Tables) -> None:
        self.rows, self.keys = tables.rows, tables.keys

    def details(self, ticket_id: str) -> TicketDetails | None:
        ticket = next((t for t in self.rows["tickets"] if t["id"] == ticket_id), None)
        if ticket is None:
            return None
        line = _one(self.rows["order_lines"], order_id=ticket["order_id"], line_no=ticket["line_no"])
        product = _one(self.rows["products"], sku=line["sku"])
        fields: Row = {k: ticket.get(k) for k in TicketDetails._fields if k not in ("sku", "name")}
        return TicketDetails(**fields, sku=product["sku"], name=product["name"])

    def view(self, ticket_id: str, limit: int) -> TicketWithTimeline | None:
        details = self.details(ticket_id)
        return None if details is None else TicketWithTimeline(details, *self.timeline(ticket_id, limit))

    def timeline(self, ticket_id: str, limit: int) -> tuple[list[TimelineEntry], int]:
        events = sorted((e for e in self.rows["ticket_events"] if e["ticket_id"] == ticket_id), key=_event_order)
        kept = events[-limit:]
        entries = [TimelineEntry(e["occurred_at"], e["type"], e["actor"], e["note"], e.get("channel")) for e in kept]
        return entries, len(events)

    def by_channel(self, since: datetime) -> list[tuple[str, str | None, int]]:
        counts: defaultdict[tuple[str, str | None], int] = defaultdict(int)
        for ticket in self.rows["tickets"]:
            if ticket["created_at"] >= since:
                counts[("opened", ticket.get("channel"))] += 1
        for event in self.rows["ticket_events"]:
            if event["type"] == EventType.CANCELLED.value and event["occurred_at"] >= since:
                counts[("cancelled", event.get("channel"))] += 1
        return [(change, channel, count) for (change, channel), count in counts.items()]

    def opened_since(self, customer_id: str, since: datetime) -> int:
        return sum(t["customer_id"] == customer_id and t["created_at"] >= since for t in self.rows["tickets"])

    def open(self, draft: NewTicket, events: list[TimelineEntry], key: KeyResult) -> str:
        open_here = [
            t for t in self.rows["tickets"] if (t["order_id"], t["line_no"]) == (draft.order_id, draft.line_no)
        ]
        if draft.status.is_open and any(TicketStatus(t["status"]).is_open for t in open_here):
            raise Conflict("uq_tickets_open_order_line")  # what the partial unique index does in storage
        year = draft.created_at.year
        counter = next((s for s in self.rows["ticket_sequences"] if s["year"] == year), None)
        if counter is None:
            counter = {"year": year, "last_value": 0}
            self.rows["ticket_sequences"].append(counter)
        counter["last_value"] += 1
        number = ticket_number(year, counter["last_value"])
        self.rows["tickets"].append(ticket_row(draft, number))
        self.record(number, events)
        self.keys[(key.caller, key.tool, key.key)].update(result=key.result.replace(draft.id, number), ticket_id=number)
        return number

    def move(self, ticket_id: str, current: TicketStatus, new: TicketStatus, at: datetime) -> bool:
        ticket = next((t for t in self.rows["tickets"] if t["id"] == ticket_id), None)
        if ticket is None or ticket["status"] != current.value:
            return False
        ticket.update(status=new.value, updated_at=at)
        return True

    def record(self, ticket_id: str, events: list[TimelineEntry]) -> None:
        top = max((e["id"] for e in self.rows["ticket_events"]), default=0)
        self.rows["ticket_events"].extend(
            {"id": top + n, "ticket_id": ticket_id, **vars(e)} for n, e in enumerate(events, start=1)
        )


class FakeOrders(ports.OrderRepository):
    """OrderRepository over the tables."""

    def __init__(self, tables: Tables) -> None:
        self.rows = tables.rows

    def line_facts(self, order_id: str, line_no: int) -> LineFactsRow | None:
        order = next((o for o in self.rows["orders"] if o["id"] == order_id), None)
        if order is None:
            return None
        lines = [x for x in self.rows["order_lines"] if x["order_id"] == order_id]
        line = next((x for x in lines if x["line_no"] == line_no), None)
        header: Row = {name: order[column] for name, column in ORDER_FIELDS.items()}
        if line is None:
            return LineFactsRow._make([*header.values(), *[None] * (len(LineFactsRow._fields) - len(header))])
        product = _one(self.rows["products"], sku=line["sku"])
        category = _one(self.rows["categories"], code=product["category_code"])
        tickets = [t for t in self.rows["tickets"] if (t["order_id"], t["line_no"]) == (order_id, line_no)]
        held = [t for t in tickets if holds_units(TicketKind(t["kind"]), TicketStatus(t["status"]))]
        open_ticket = next((t["id"] for t in tickets if TicketStatus(t["status"]).is_open), None)
        return LineFactsRow(
            **header,
            line_no=line_no,
            quantity=line["quantity"],
            unit_price_minor=line["unit_price_minor"],
            discount_minor=line["discount_minor"],
            sku=product["sku"],
            product_name=product["name"],
            returnable=product["returnable"],
            repairable=product["repairable"],
            warranty_months=product["warranty_months"],
            category_name=category["name"],
            return_window_days=category["return_window_days"],
            restocking_fee_bps=category["restocking_fee_bps"],
            order_goods_minor=sum(paid_minor(x["unit_price_minor"], x["quantity"], x["discount_minor"]) for x in lines),
            committed_quantity=sum(t["quantity"] for t in held),
            open_ticket_id=open_ticket,
        )

    def order_line_facts(self, order_id: str) -> list[LineFactsRow]:
        numbers = sorted(x["line_no"] for x in self.rows["order_lines"] if x["order_id"] == order_id)
        return [row for number in numbers if (row := self.line_facts(order_id, number)) is not None]

    def lines(self, order_id: str) -> list[tuple[int, str, int]]:
        lines = sorted((x for x in self.rows["order_lines"] if x["order_id"] == order_id), key=lambda x: x["line_no"])
        return [(x["line_no"], _one(self.rows["products"], sku=x["sku"])["name"], x["quantity"]) for x in lines]


class FakeQuotes(ports.QuoteRepository):
    """QuoteRepository over the tables."""

    def __init__(self, tables: Tables) -> None:
        self.quotes = tables.quotes

    def add(self, quote: Quote) -> None:
        self.quotes[quote.id] = quote

    def get_owned(self, quote_id: str, owner: str) -> Quote | None:
        quote = self.quotes.get(quote_id)
        return quote if quote is not None and quote.owner == owner else None

    def purge_expired_before(self, cutoff: datetime) -> int:
        gone = [key for key, quote in self.quotes.items() if quote.expires_at < cutoff]
        for key in gone:
            del self.quotes[key]
        return len(gone)


class FakeKeys(ports.IdempotencyRepository):
    """IdempotencyRepository over the tables; a live key is unique, as the database's constraint makes it."""

    def __init__(self, tables: Tables) -> None:
        self.keys = tables.keys

    def find(self, caller: str, tool: str, key: str, now: datetime) -> KeyRecord | None:
        record = self.keys.get((caller, tool, key))
        if record is None or record["expires_at"] <= now:
            return None
        return KeyRecord(arguments=json.loads(record["arguments"]), result=record["result"])

    def claim(
        self, caller: str, tool: str, key: str, arguments: dict[str, Any], now: datetime, until: datetime
    ) -> None:
        if (caller, tool, key) in self.keys:
            raise Conflict("uq_idempotency_records_caller_tool_key")
        self.keys[(caller, tool, key)] = {"arguments": json.dumps(arguments), "result": None, "expires_at": until}

    def complete(self, caller: str, tool: str, key: str, result: str, ticket_id: str | None) -> None:
        self.keys[(caller, tool, key)].update(result=result, ticket_id=ticket_id)

    def live(self, caller: str, tool: str, key: str, now: datetime) -> KeyRecord | None:
        self.drop_expired(caller, tool, key, now)
        return self.find(caller, tool, key, now)

    def drop_expired(self, caller: str, tool: str, key: str, now: datetime) -> None:
        record = self.keys.get((caller, tool, key))
        if record is not None and record["expires_at"] <= now:
            del self.keys[(caller, tool, key)]

    def purge_expired(self, now: datetime) -> int:
        gone = [key for key, record in self.keys.items() if record["expires_at"] <= now]
        for key in gone:
            del self.keys[key]
        return len(gone)


class FakePayouts(ports.PayoutRepository):
    """PayoutRepository over the tables: a write that finds the request in another state changes nothing."""

    def __init__(self, tables: Tables) -> None:
        self.requests = tables.payouts

    def for_call(self, caller: str, key: str) -> PayoutRow | None:
        return self._first(lambda row: (row["caller"], row["idempotency_key"]) == (caller, key))

    def for_id(self, request_id: str) -> PayoutRow | None:
        return self._first(lambda row: row["id"] == request_id)

    def for_token(self, digest: str) -> PayoutRow | None:
        return self._first(lambda row: row["token_digest"] == digest)

    def open(self, values: dict[str, Any]) -> None:
        unanswered = dict.fromkeys(("submitted_at", "reference", "account_mask", "sealed"))
        self.requests[values["id"]] = unanswered | values

    def reopen(self, request_id: str, values: dict[str, Any]) -> bool:
        return self._change(request_id, ("pending", "closed"), values | {"status": "pending"})

    def submit(self, request_id: str, now: datetime, reference: str, mask: str, sealed: str) -> bool:
        if self.requests[request_id]["expires_at"] <= now:
            return False
        values = {"submitted_at": now, "reference": reference, "account_mask": mask, "sealed": sealed}
        return self._change(request_id, ("pending",), values | {"status": "submitted"})

    def close(self, request_id: str) -> bool:
        return self._change(request_id, ("pending",), {"status": "closed"})

    def use(self, request_id: str) -> bool:
        return self._change(request_id, ("submitted",), {"status": "used"})

    def _first(self, matches: Callable[[Row], bool]) -> PayoutRow | None:
        row = next((row for row in self.requests.values() if matches(row)), None)
        return None if row is None else PayoutRow(**{name: row[name] for name in PayoutRow.__dataclass_fields__})

    def _change(self, request_id: str, was: tuple[str, ...], values: Row) -> bool:
        row = self.requests.get(request_id)
        if row is None or row["status"] not in was:
            return False
        row.update(values)
        return True


class FakeToolCalls(ports.ToolCallRepository):
    """ToolCallRepository over the tables' `tool_calls` rows (as storage.audit writes them), worked out call by call."""

    def __init__(self, tables: Tables) -> None:
        self.rows = tables.rows.setdefault("tool_calls", [])

    def figures(self, since: datetime) -> list[ToolFigures]:
        by_tool: defaultdict[str, list[Row]] = defaultdict(list)
        for call in sorted(self.rows, key=lambda row: row["called_at"]):  # stable: equal times keep their order
            if call["called_at"] >= since:
                by_tool[call["tool"]].append(call)
        return [_figures(tool, calls) for tool, calls in by_tool.items()]


def _figures(tool: str, calls: list[Row]) -> ToolFigures:
    """One tool's figures from its calls in the order they were made (repeats per caller: domain.calls)."""
    last_failure: dict[str, datetime] = {}
    repeats = 0
    for call in calls:
        repeats += repeats_failure(last_failure.pop(call["caller"], None), call["called_at"])
        if call["outcome"] in FAILED:
            last_failure[call["caller"]] = call["called_at"]
    latencies = [call["latency_ms"] for call in calls]
    return ToolFigures(
        tool,
        len(calls),
        sum(call["arguments_valid"] for call in calls),
        sum(call["outcome"] in FAILED for call in calls),
        sum(call["input_round"] > 1 for call in calls),
        sum(call["replayed"] for call in calls),
        repeats,
        percentile(latencies, 0.5),
        percentile(latencies, 0.95),
    )


# LineFactsRow's fields from the order, and the order's columns they come from.
ORDER_FIELDS = {
    "order_id": "id",
    "customer_id": "customer_id",
    "order_status": "status",
    "delivered_at": "delivered_at",
    "payment_method": "payment_method",
    "currency": "currency",
    "shipping_fee_minor": "shipping_fee_minor",
}


def _one(rows: list[dict[str, Any]], **match: Any) -> dict[str, Any]:
    return next(row for row in rows if all(row[k] == v for k, v in match.items()))


def _event_order(event: dict[str, Any]) -> tuple[datetime, int]:
    return event["occurred_at"], event["id"]

"""A unit of work over in-memory tables, so the services' rules are tested in milliseconds (cosmicpython's fake).

The fake repositories answer from the same domain rules storage builds its SQL from (holds_units, paid_minor, the
closed statuses), so a rule test on the fake and an integration test on a database check one definition.
"""

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Self

from aftersales.clock import as_utc
from aftersales.domain.creation import KeyRecord
from aftersales.domain.enums import TicketKind, TicketStatus
from aftersales.domain.policy import holds_units
from aftersales.domain.quotes import Quote
from aftersales.domain.refunds import paid_minor
from aftersales.domain.tickets import NewTicket, TimelineEntry, ticket_number
from aftersales.seeding.generator import World
from aftersales.seeding.loader import shift_for
from aftersales.storage.database_errors import Conflict
from aftersales.storage.opening import KeyResult, ticket_row
from aftersales.storage.repositories import LineFactsRow, TicketDetails, TicketWithTimeline
from tests.support.fake_listings import FakeListings


@dataclass
class Tables:
    """The rows a fake database holds, by table, as the dataset file has them."""

    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    quotes: dict[str, Quote] = field(default_factory=dict)
    keys: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)

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
        return Tables(rows, dict(self.quotes), {key: dict(record) for key, record in self.keys.items()})


class FakeDatabase:
    """Committed state; each unit of work works on a copy and writes it back only on commit."""

    def __init__(self, world: World, now: datetime) -> None:
        self.tables = Tables.of(world, now)
        self.commits = 0


class FakeUnitOfWork:
    """The UnitOfWork interface over a FakeDatabase: rolls back unless committed."""

    def __init__(self, database: FakeDatabase) -> None:
        self.database = database

    def __enter__(self) -> Self:
        self._work = self.database.tables.copy()
        self.tickets = FakeTickets(self._work)
        self.orders = FakeOrders(self._work)
        self.quotes = FakeQuotes(self._work)
        self.idempotency = FakeKeys(self._work)
        self.listings = FakeListings(self._work.rows)
        return self

    def __exit__(self, *_: object) -> None:
        del self._work

    def commit(self) -> None:
        """Make this unit's work the database's state."""
        self.database.tables = self._work.copy()
        self.database.commits += 1


class FakeTickets:
    """TicketRepository over the tables."""

    def __init__(self, tables: Tables) -> None:
        self.rows, self.keys = tables.rows, tables.keys

    def details(self, ticket_id: str) -> TicketDetails | None:
        ticket = next((t for t in self.rows["tickets"] if t["id"] == ticket_id), None)
        if ticket is None:
            return None
        line = _one(self.rows["order_lines"], order_id=ticket["order_id"], line_no=ticket["line_no"])
        product = _one(self.rows["products"], sku=line["sku"])
        fields = {k: ticket.get(k) for k in TicketDetails._fields if k not in ("sku", "name")}
        return TicketDetails(**fields, sku=product["sku"], name=product["name"])

    def view(self, ticket_id: str, limit: int) -> TicketWithTimeline | None:
        details = self.details(ticket_id)
        return None if details is None else TicketWithTimeline(details, *self.timeline(ticket_id, limit))

    def timeline(self, ticket_id: str, limit: int) -> tuple[list[TimelineEntry], int]:
        events = sorted((e for e in self.rows["ticket_events"] if e["ticket_id"] == ticket_id), key=_event_order)
        kept = events[-limit:]
        entries = [TimelineEntry(e["occurred_at"], e["type"], e["actor"], e["note"], e.get("channel")) for e in kept]
        return entries, len(events)

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


class FakeOrders:
    """OrderRepository over the tables."""

    def __init__(self, tables: Tables) -> None:
        self.rows = tables.rows

    def line_facts(self, order_id: str, line_no: int) -> LineFactsRow | None:
        order = next((o for o in self.rows["orders"] if o["id"] == order_id), None)
        if order is None:
            return None
        lines = [x for x in self.rows["order_lines"] if x["order_id"] == order_id]
        line = next((x for x in lines if x["line_no"] == line_no), None)
        if line is None:
            return LineFactsRow(*(order.get(k) for k in ORDER_FIELDS), *([None] * 15))
        product = _one(self.rows["products"], sku=line["sku"])
        category = _one(self.rows["categories"], code=product["category_code"])
        tickets = [t for t in self.rows["tickets"] if (t["order_id"], t["line_no"]) == (order_id, line_no)]
        held = [t for t in tickets if holds_units(TicketKind(t["kind"]), TicketStatus(t["status"]))]
        open_ticket = next((t["id"] for t in tickets if TicketStatus(t["status"]).is_open), None)
        return LineFactsRow(
            *(order[k] for k in ORDER_FIELDS),
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


class FakeQuotes:
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


class FakeKeys:
    """IdempotencyRepository over the tables; a live key is unique, as the database's constraint makes it."""

    def __init__(self, tables: Tables) -> None:
        self.keys = tables.keys

    def find(self, caller: str, tool: str, key: str, now: datetime) -> KeyRecord | None:
        record = self.keys.get((caller, tool, key))
        if record is None or as_utc(record["expires_at"]) <= now:
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


ORDER_FIELDS = ("id", "customer_id", "status", "delivered_at", "payment_method", "currency", "shipping_fee_minor")


def _one(rows: list[dict[str, Any]], **match: Any) -> dict[str, Any]:
    return next(row for row in rows if all(row[k] == v for k, v in match.items()))


def _event_order(event: dict[str, Any]) -> tuple[datetime, int]:
    return event["occurred_at"], event["id"]

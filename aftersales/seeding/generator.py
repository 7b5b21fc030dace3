"""A deterministic world generator: the same seed always gives the same dataset."""

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, text

from aftersales.domain.enums import (
    Channel,
    EventType,
    OrderStatus,
    PaymentMethod,
    ReasonCode,
    RefundMethod,
    TicketKind,
    TicketStatus,
    Tier,
)
from aftersales.domain.policy import CATEGORY_POLICIES, KIND_STATUSES
from aftersales.domain.refunds import LineFacts, compute_refund
from aftersales.seeding.catalog import CUSTOMER_WORDS, GIVEN_NAMES, PRODUCTS, SURNAMES
from aftersales.seeding.stories import STORIES, Story
from aftersales.seeding.timelines import timeline_for
from aftersales.settings import Settings

ANCHOR = datetime(2026, 11, 30, tzinfo=UTC)
DEFAULT_SEED = 20261130
CURRENCY = "CNY"
CHANNELS = [c.value for c in Channel]
PAYMENTS, PAYMENT_WEIGHTS = [p.value for p in PaymentMethod], [55, 90, 100]
REVIEW_ABOVE_MINOR = Settings.model_fields["review_above_minor"].default
WINDOWS = {policy.code: policy.return_window_days for policy in CATEGORY_POLICIES}
FEES = {policy.code: policy.restocking_fee_bps for policy in CATEGORY_POLICIES}


@dataclass
class World:
    """Rows of every table, as plain dicts ready to insert."""

    anchor: datetime
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    stories: dict[str, dict[str, Any]] = field(default_factory=dict)


def order_status_for(rng: random.Random, age: timedelta) -> OrderStatus:
    """A fulfilment status that fits how long ago the order was placed."""
    if rng.random() < 0.06:
        return OrderStatus.CANCELLED
    if age < timedelta(days=1.5):
        return rng.choice([OrderStatus.PENDING, OrderStatus.SHIPPED])
    if age < timedelta(days=5):
        return rng.choice([OrderStatus.SHIPPED, OrderStatus.SHIPPED, OrderStatus.DELIVERED])
    return OrderStatus.DELIVERED


def order_rows(
    rng: random.Random,
    order_id: str,
    customer_id: str,
    placed: datetime,
    status: OrderStatus,
    items: list[tuple[dict[str, Any], int]],
    anchor: datetime,
    delivered: datetime | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One order and its lines as rows; the order-level discount is shared across lines by value."""
    gross = sum(product["price_minor"] * quantity for product, quantity in items)
    discount = rng.choice([0, 0, 0, gross // 20, gross // 10]) if gross > 10000 else 0
    shipped = placed + timedelta(hours=rng.randint(6, 40)) if status is not OrderStatus.PENDING else None
    if status is OrderStatus.CANCELLED:
        shipped = None
    if status is OrderStatus.DELIVERED:
        latest = anchor - timedelta(hours=2)
        delivered = delivered or min(latest, (shipped or placed) + timedelta(hours=rng.randint(20, 90)))
        shipped = min(shipped or placed, delivered - timedelta(hours=20))
        placed = min(placed, shipped - timedelta(hours=6))
    order = {
        "id": order_id,
        "customer_id": customer_id,
        "channel": rng.choice(CHANNELS),
        "payment_method": rng.choices(PAYMENTS, cum_weights=PAYMENT_WEIGHTS)[0],
        "status": status.value,
        "currency": CURRENCY,
        "placed_at": placed,
        "shipped_at": shipped,
        "delivered_at": delivered if status is OrderStatus.DELIVERED else None,
        "shipping_fee_minor": 0 if gross >= 19900 else 1000,  # free shipping from ¥199
        "discount_minor": discount,
    }
    lines, remaining = [], discount
    for line_no, (product, quantity) in enumerate(items, start=1):
        line_gross = product["price_minor"] * quantity
        share = remaining if line_no == len(items) else discount * line_gross // gross
        remaining -= share
        lines.append(
            {
                "order_id": order_id,
                "line_no": line_no,
                "sku": product["sku"],
                "quantity": quantity,
                "unit_price_minor": product["price_minor"],
                "discount_minor": share,
            }
        )
    return order, lines


def category_rows() -> list[dict[str, Any]]:
    """The categories table, from the policy."""
    return [
        {
            "code": p.code,
            "name": p.name,
            "return_window_days": p.return_window_days,
            "restocking_fee_bps": p.restocking_fee_bps,
        }
        for p in CATEGORY_POLICIES
    ]


def advance_event_sequence(connection: Connection) -> None:
    """Explicit event ids bypass PostgreSQL's serial sequence; move it past them so new events get fresh ids."""
    if connection.dialect.name == "postgresql":
        top = connection.scalar(text("SELECT coalesce(max(id), 1) FROM ticket_events"))
        connection.execute(text("SELECT setval(pg_get_serial_sequence('ticket_events', 'id'), :top)"), {"top": top})


def generate(customers: int = 300, orders: int = 1500, tickets: int = 400, seed: int = DEFAULT_SEED) -> World:
    """Build the world: catalogue, customers, orders with lines, and tickets with timelines."""
    builder = Builder(random.Random(seed))
    builder.catalogue()
    builder.customers(customers)
    builder.orders(orders)
    builder.tickets(tickets)
    return builder.finish()


class Builder:
    """Accumulates rows; every random choice comes from one seeded generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.products: list[dict[str, Any]] = []
        self.customer_rows: list[dict[str, Any]] = []
        self.order_rows: list[dict[str, Any]] = []
        self.line_rows: list[dict[str, Any]] = []
        self.ticket_rows: list[dict[str, Any]] = []
        self.story_refs: dict[str, dict[str, Any]] = {}
        self.used_lines: set[tuple[int, int]] = set()

    def catalogue(self) -> None:
        """Products from the fixed list, SKUs by category."""
        counters: dict[str, int] = {}
        for category, name, price, warranty, returnable, repairable in PRODUCTS:
            counters[category] = counters.get(category, 0) + 1
            self.products.append(
                {
                    "sku": f"{category[:3].upper()}-{counters[category]:03d}",
                    "name": name,
                    "category_code": category,
                    "price_minor": price,
                    "currency": CURRENCY,
                    "warranty_months": warranty,
                    "returnable": returnable,
                    "repairable": repairable,
                }
            )

    def customers(self, count: int) -> None:
        """Customers across tiers; the first few are the story customers."""
        tiers = self.rng.choices([Tier.STANDARD, Tier.PLUS, Tier.VIP], weights=[70, 22, 8], k=count)
        for number in range(1, count + 1):
            surname, given = self.rng.choice(SURNAMES), self.rng.choice(GIVEN_NAMES)
            self.customer_rows.append(
                {
                    "id": f"C-{number:05d}",
                    "name": f"{given} {surname}",
                    "email": f"{given.lower()}.{surname.lower()}.{number}@example.com",
                    "phone": f"+86 13{self.rng.randint(0, 9)}{self.rng.randint(0, 99999999):08d}",
                    "tier": tiers[number - 1].value,
                    "created_at": ANCHOR - timedelta(days=self.rng.randint(420, 1500)),
                }
            )

    def orders(self, count: int) -> None:
        """Story orders first, then random orders over the last 400 days."""
        for story in STORIES:
            self._story_order(story)
        for _ in range(count - len(STORIES)):
            # Recent orders are over-represented, as they are in any shop's after-sales queue.
            placed = ANCHOR - timedelta(days=self.rng.uniform(1, self.rng.choice([45, 400, 400])))
            status = order_status_for(self.rng, ANCHOR - placed)
            customer = self.rng.choice(self.customer_rows)["id"]
            skus = self.rng.sample(self.products, k=self.rng.choices([1, 2, 3], weights=[60, 30, 10])[0])
            self._add_order(customer, placed, status, [(p, self.rng.choices([1, 2, 3], [80, 15, 5])[0]) for p in skus])

    def _story_order(self, story: Story) -> None:
        """An order built to tell one story, remembered under the story's key."""
        customer = self.customer_rows[story.customer_index]
        customer["tier"] = story.tier.value
        product = self.products[story.product_index]
        delivered = ANCHOR - story.delivered_ago if story.delivered_ago is not None else None
        placed = (delivered or ANCHOR) - timedelta(days=3, hours=5)
        order = self._add_order(customer["id"], placed, story.order_status, [(product, story.quantity)], delivered)
        self.used_lines.add((id(order), 1))  # random tickets stay off story lines
        self.story_refs[story.key] = {"order": order, "customer_id": customer["id"], "sku": product["sku"]}

    def _add_order(
        self,
        customer_id: str,
        placed: datetime,
        status: OrderStatus,
        items: list[tuple[dict[str, Any], int]],
        delivered: datetime | None = None,
    ) -> dict[str, Any]:
        """Append an order and its lines, linked for ticket generation; ids are assigned by finish()."""
        order, lines = order_rows(self.rng, "", customer_id, placed, status, items, ANCHOR, delivered)
        order["_lines"] = []
        for line, (product, _) in zip(lines, items, strict=True):
            line.update({"order": order, "_product": product})
            order["_lines"].append(line)
            self.line_rows.append(line)
        self.order_rows.append(order)
        return order

    def tickets(self, count: int) -> None:
        """Story tickets, then every (kind, status) pair, then random pairs, each on its own line."""
        for story in STORIES:
            if story.ticket is not None:
                order = self.story_refs[story.key]["order"]
                self.story_refs[story.key]["ticket"] = self._add_ticket(order["_lines"][0], *story.ticket)
        pairs = [(kind, status) for kind, statuses in KIND_STATUSES.items() for status in statuses]
        remaining = count - len(self.ticket_rows)
        # Most tickets in a real queue are closed; every pair still appears at least once.
        weights = [
            {TicketStatus.COMPLETED: 8, TicketStatus.REJECTED: 2, TicketStatus.CANCELLED: 2}.get(status, 1)
            for _, status in pairs
        ]
        plan = pairs + self.rng.choices(pairs, weights=weights, k=max(0, remaining - len(pairs)))
        for kind, status in plan[:remaining]:
            reason = self._reason_for(kind)
            line = self._eligible_line(kind, status)
            self._add_ticket(line, kind, status, reason, self._method_for(kind))

    def _reason_for(self, kind: TicketKind) -> ReasonCode:
        """A reason that fits the kind (repairs are for faults)."""
        if kind is TicketKind.REPAIR:
            return ReasonCode.DEFECTIVE
        return self.rng.choices(list(ReasonCode), weights=[12, 18, 10, 12, 8, 25, 8, 7])[0]

    def _method_for(self, kind: TicketKind) -> RefundMethod | None:
        """A refund method for refund kinds, none otherwise."""
        if not kind.refunds:
            return None
        return self.rng.choices(list(RefundMethod), weights=[75, 25])[0]

    def _eligible_line(self, kind: TicketKind, status: TicketStatus) -> dict[str, Any]:
        """An unused delivered line whose window (or warranty, for repairs) fits the ticket's age."""
        for _ in range(50000):
            line = self.rng.choice(self.line_rows)
            order, product = line["order"], line["_product"]
            if order["status"] != OrderStatus.DELIVERED or (id(order), line["line_no"]) in self.used_lines:
                continue
            age = (ANCHOR - order["delivered_at"]).days
            window = _window(kind, product)
            # An open ticket was opened in the last few days, so the line must still be inside its window then.
            allowed = product["repairable" if kind is TicketKind.REPAIR else "returnable"]
            if allowed and age >= 2 and (not status.is_open or age < window + 2):
                return line
        raise RuntimeError(f"no order line fits a {kind} ticket in status {status}; generate more orders")

    def _add_ticket(
        self,
        line: dict[str, Any],
        kind: TicketKind,
        status: TicketStatus,
        reason: ReasonCode,
        method: RefundMethod | None,
    ) -> dict[str, Any]:
        """Append a ticket on `line` with a coherent timeline inside the line's window."""
        order, product = line["order"], line["_product"]
        self.used_lines.add((id(order), line["line_no"]))
        quantity = self.rng.randint(1, line["quantity"])
        window = _window(kind, product)
        age = (ANCHOR - order["delivered_at"]).total_seconds() / 86400
        # Open tickets are recent; closed ones may be old. Either way inside the window.
        latest = min(age - 0.2, window - 0.2)
        earliest = max(0.05, latest - (3 if status.is_open else window))
        created = order["delivered_at"] + timedelta(days=self.rng.uniform(earliest, max(earliest, latest)))
        created = min(created, ANCHOR - timedelta(hours=6))
        facts = LineFacts(
            unit_price_minor=line["unit_price_minor"],
            quantity=line["quantity"],
            discount_minor=line["discount_minor"],
            order_goods_minor=sum(x["unit_price_minor"] * x["quantity"] - x["discount_minor"] for x in order["_lines"]),
            shipping_fee_minor=order["shipping_fee_minor"],
            restocking_fee_bps=FEES[product["category_code"]],
        )
        breakdown = compute_refund(facts, quantity, reason, kind)
        # Mirrors the live policy: large refunds are reviewed; so is anything that ended up under review or rejected.
        reviewed = breakdown.total_minor > REVIEW_ABOVE_MINOR or status in (
            TicketStatus.UNDER_REVIEW,
            TicketStatus.REJECTED,
        )
        events = timeline_for(kind, status, created, self.rng, ANCHOR, reviewed)
        ticket = {
            "id": "",  # numbered by creation time in finish()
            "order_id": order,
            "line_no": line["line_no"],
            "customer_id": order["customer_id"],
            "quantity": quantity,
            "kind": kind.value,
            "reason_code": reason.value,
            "description": self.rng.choice(CUSTOMER_WORDS[reason.value]),
            "refund_method": method.value if method else None,
            "currency": CURRENCY,
            "item_amount_minor": breakdown.item_amount_minor,
            "restocking_fee_minor": breakdown.restocking_fee_minor,
            "shipping_refund_minor": breakdown.shipping_refund_minor,
            "refund_total_minor": breakdown.total_minor,
            "status": status.value,
            "created_by": "seed",
            "created_at": created,
            "updated_at": events[-1][0],
            "_events": events,
        }
        self.ticket_rows.append(ticket)
        return ticket

    def finish(self) -> World:
        """Number orders and tickets in time order and flatten rows into tables."""
        for number, order in enumerate(sorted(self.order_rows, key=lambda o: o["placed_at"]), start=1):
            order["id"] = f"O-{order['placed_at'].year}-{number:06d}"
        sequences: dict[int, int] = {}
        for ticket in sorted(self.ticket_rows, key=lambda t: t["created_at"]):
            year = ticket["created_at"].year
            sequences[year] = sequences.get(year, 0) + 1
            ticket["id"] = f"T-{year}-{sequences[year]:04d}"
        for row in [*self.order_rows, *self.ticket_rows, *self.customer_rows]:
            for key, value in row.items():
                if isinstance(value, datetime):
                    row[key] = value.replace(microsecond=0)  # whole seconds, like the timeline events
        world = World(anchor=ANCHOR)
        world.tables = {
            "categories": category_rows(),
            "products": self.products,
            "customers": self.customer_rows,
            "orders": [_public(o) for o in sorted(self.order_rows, key=lambda o: o["id"])],
            "order_lines": [
                {**_public(line), "order_id": line["order"]["id"]}
                for line in sorted(self.line_rows, key=lambda x: (x["order"]["id"], x["line_no"]))
            ],
            "tickets": [
                {**_public(t), "order_id": t["order_id"]["id"]} for t in sorted(self.ticket_rows, key=lambda t: t["id"])
            ],
            "ticket_events": [],
            "ticket_sequences": [{"year": y, "last_value": n} for y, n in sorted(sequences.items())],
        }
        for ticket in sorted(self.ticket_rows, key=lambda t: t["id"]):
            for at, kind, actor, note in ticket["_events"]:
                world.tables["ticket_events"].append(
                    {
                        "id": len(world.tables["ticket_events"]) + 1,
                        "ticket_id": ticket["id"],
                        "occurred_at": at,
                        "type": kind.value if isinstance(kind, EventType) else kind,
                        "actor": actor,
                        "note": note,
                    }
                )
        world.stories = {
            key: {
                "order_id": ref["order"]["id"],
                "customer_id": ref["customer_id"],
                "sku": ref["sku"],
                **({"ticket_id": ref["ticket"]["id"]} if "ticket" in ref else {}),
            }
            for key, ref in self.story_refs.items()
        }
        return world


def _window(kind: TicketKind, product: dict[str, Any]) -> int:
    """Days after delivery in which a ticket of this kind may be opened (warranty for repairs)."""
    if kind is TicketKind.REPAIR:
        return 30 * product["warranty_months"]
    return WINDOWS[product["category_code"]]


def _public(row: dict[str, Any]) -> dict[str, Any]:
    """Drop the builder's private keys (those starting with an underscore) and object links."""
    return {k: v for k, v in row.items() if not k.startswith("_") and k != "order"}

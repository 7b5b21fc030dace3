"""A deterministic world generator: the same seed always gives the same dataset."""

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from aftersales.domain.enums import OrderStatus, ReasonCode, RefundMethod, TicketKind, TicketStatus, Tier
from aftersales.domain.policy import CATEGORY_POLICIES, KIND_STATUSES, THRESHOLDS, CategoryPolicy, Thresholds
from aftersales.seeding import ticket_builder
from aftersales.seeding.catalog import GIVEN_NAMES, PRODUCTS, SURNAMES
from aftersales.seeding.orders import category_rows, goods_minor, order_number, order_rows, order_status_for
from aftersales.seeding.stories import APPENDED_STORIES, COD_STORIES, STORIES, Story
from aftersales.seeding.ticket_builder import CURRENCY, Plan, SeedLine

ANCHOR = datetime(2026, 11, 30, tzinfo=UTC)
DEFAULT_SEED = 20261130


@dataclass
class World:
    """Rows of every table, as plain dicts ready to insert."""

    anchor: datetime
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    stories: dict[str, dict[str, Any]] = field(default_factory=dict)


def generate(
    customers: int = 300,
    orders: int = 1500,
    tickets: int = 400,
    seed: int = DEFAULT_SEED,
    thresholds: Thresholds = THRESHOLDS,
    categories: Iterable[CategoryPolicy] = CATEGORY_POLICIES,
) -> World:
    """Build the world: catalogue, customers, orders with lines, and tickets with timelines, under one policy."""
    builder = Builder(random.Random(seed), categories)
    builder.catalogue()
    builder.customers(customers)
    builder.orders(orders)
    builder.number_orders()
    builder.tickets(tickets, thresholds)
    # A generator of their own, so the appended stories leave every draw above (and so every earlier id) unchanged.
    builder.appended_stories(random.Random(seed + 1), thresholds, APPENDED_STORIES)
    builder.appended_stories(random.Random(seed + 2), thresholds, COD_STORIES)
    return builder.finish()


class Builder:
    """Accumulates rows; every random choice comes from one seeded generator."""

    def __init__(self, rng: random.Random, categories: Iterable[CategoryPolicy] = CATEGORY_POLICIES) -> None:
        self.rng = rng
        self.categories = {category.code: category for category in categories}
        self.products: list[dict[str, Any]] = []
        self.customer_rows: list[dict[str, Any]] = []
        self.order_rows: list[dict[str, Any]] = []
        self.line_rows: list[dict[str, Any]] = []
        self.ticket_rows: list[dict[str, Any]] = []
        self.event_rows: list[dict[str, Any]] = []
        self.sequences: dict[int, int] = {}
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

    def customers(self, count: int, first: int = 1) -> None:
        """Customers across tiers, numbered from `first`; the first few are the story customers."""
        tiers = self.rng.choices([Tier.STANDARD, Tier.PLUS, Tier.VIP], weights=[70, 22, 8], k=count)
        for number in range(first, first + count):
            surname, given = self.rng.choice(SURNAMES), self.rng.choice(GIVEN_NAMES)
            self.customer_rows.append(
                {
                    "id": f"C-{number:05d}",
                    "name": f"{given} {surname}",
                    "email": f"{given.lower()}.{surname.lower()}.{number}@example.com",
                    "phone": f"+86 13{self.rng.randint(0, 9)}{self.rng.randint(0, 99999999):08d}",
                    "tier": tiers[number - first].value,
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

    def _story_order(self, story: Story, first_customer: int = 0) -> None:
        """An order built to tell one story, remembered under the story's key."""
        customer = self.customer_rows[first_customer + story.customer_index]
        customer["tier"] = story.tier.value
        product = self.products[story.product_index]
        delivered = ANCHOR - story.delivered_ago if story.delivered_ago is not None else None
        placed = (delivered or ANCHOR) - timedelta(days=3, hours=5)
        order = self._add_order(customer["id"], placed, story.order_status, [(product, story.quantity)], delivered)
        if story.payment is not None:
            order["payment_method"] = story.payment.value  # set after the draw, so the generator's sequence holds
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
        """Append an order and its lines, linked for ticket generation; ids are assigned by number_orders()."""
        order, lines = order_rows(self.rng, "", customer_id, placed, status, items, ANCHOR, delivered)
        order["_lines"] = []
        for line, (product, _) in zip(lines, items, strict=True):
            line.update({"order": order, "_product": product})
            order["_lines"].append(line)
            self.line_rows.append(line)
        self.order_rows.append(order)
        return order

    def number_orders(self, first: int = 0) -> None:
        """Number the orders from the `first`-th on in placement order, keeping times to the second as stored."""
        for number, order in enumerate(sorted(self.order_rows[first:], key=lambda o: o["placed_at"]), start=first + 1):
            order["id"] = order_number(order["placed_at"].year, number)  # one count across the years
            for key in ("placed_at", "shipped_at", "delivered_at"):
                if order[key] is not None:
                    order[key] = order[key].replace(microsecond=0)

    def tickets(self, count: int, thresholds: Thresholds) -> None:
        """Story tickets, then every (kind, status) pair, then random pairs, each on its own line."""
        plans, story_of = self._story_plans(STORIES)
        pairs = [(kind, status) for kind, statuses in KIND_STATUSES.items() for status in statuses]
        remaining = count - len(plans)
        # Most tickets in a real queue are closed; every pair still appears at least once.
        weights = [
            {TicketStatus.COMPLETED: 8, TicketStatus.REJECTED: 2, TicketStatus.CANCELLED: 2}.get(status, 1)
            for _, status in pairs
        ]
        chosen = pairs + self.rng.choices(pairs, weights=weights, k=max(0, remaining - len(pairs)))
        for kind, status in chosen[:remaining]:
            reason = ticket_builder.draw_reason(self.rng, kind)
            line = self._eligible_line(kind, status)
            plans.append(self._plan(line, kind, status, reason, ticket_builder.draw_method(self.rng, kind)))
        self._build(plans, story_of, thresholds)

    def appended_stories(
        self, rng: random.Random, thresholds: Thresholds, stories: tuple[Story, ...] = APPENDED_STORIES
    ) -> None:
        """`stories` after the rest: new customers, their orders and tickets numbered after all others."""
        self.rng = rng
        first_customer, first_order = len(self.customer_rows), len(self.order_rows)
        self.customers(1 + max((story.customer_index for story in stories), default=-1), first_customer + 1)
        for story in stories:
            self._story_order(story, first_customer)
        self.number_orders(first_order)
        # Their customers have no other tickets, so the review rule's recent counts see all they need.
        plans, story_of = self._story_plans(stories)
        self._build(plans, story_of, thresholds, numbered=self.sequences)

    def _story_plans(self, stories: Iterable[Story]) -> tuple[list[Plan], dict[int, str]]:
        """The planned tickets of the stories that have one, and which story each plan is for."""
        plans, story_of = [], {}
        for story in stories:
            if story.ticket is not None:
                kind, status, reason, method = story.ticket
                line = self.story_refs[story.key]["order"]["_lines"][0]
                plans.append(self._plan(line, kind, status, reason, method))
                story_of[id(plans[-1])] = story.key
        return plans, story_of

    def _build(
        self,
        plans: list[Plan],
        story_of: dict[int, str],
        thresholds: Thresholds,
        numbered: dict[int, int] | None = None,
    ) -> None:
        """Number the plans in creation order (after `numbered`) and build each ticket with its timeline."""
        scheduled, self.sequences = ticket_builder.schedule(plans, thresholds, numbered)
        for ticket in scheduled:
            row, events = ticket_builder.build(self.rng, ticket, ANCHOR, thresholds)
            if id(ticket.plan) in story_of:
                row, events = ticket_builder.keep_current(row, events, ANCHOR)
            self.ticket_rows.append(row)
            self.event_rows.extend(
                {"ticket_id": row["id"], "occurred_at": at, "type": event.value, "actor": actor, "note": note}
                for at, event, actor, note in events
            )
            if id(ticket.plan) in story_of:
                self.story_refs[story_of[id(ticket.plan)]]["ticket_id"] = row["id"]

    def _eligible_line(self, kind: TicketKind, status: TicketStatus) -> dict[str, Any]:
        """An unused delivered line whose window (or warranty, for repairs) fits the ticket's age."""
        for _ in range(50000):
            line = self.rng.choice(self.line_rows)
            order, product = line["order"], line["_product"]
            if order["status"] != OrderStatus.DELIVERED or (id(order), line["line_no"]) in self.used_lines:
                continue
            age = (ANCHOR - order["delivered_at"]).days
            # An open ticket was opened in the last few days, so the line must still be inside its window then.
            allowed = product["repairable" if kind is TicketKind.REPAIR else "returnable"]
            if (
                allowed
                and age >= 2
                and (not status.is_open or age < ticket_builder.open_for_days(self._seed_line(line), kind) + 2)
            ):
                return line
        raise RuntimeError(f"no order line fits a {kind} ticket in status {status}; generate more orders")

    def _plan(
        self,
        line: dict[str, Any],
        kind: TicketKind,
        status: TicketStatus,
        reason: ReasonCode,
        method: RefundMethod | None,
    ) -> Plan:
        """A ticket on `line` opened inside its window: recently when still open, at any time when closed."""
        self.used_lines.add((id(line["order"]), line["line_no"]))
        seed_line = self._seed_line(line)
        window = ticket_builder.open_for_days(seed_line, kind)
        age = (ANCHOR - seed_line.delivered_at).total_seconds() / 86400
        latest = min(age - 0.2, window - 0.2)
        earliest = max(0.05, latest - (3 if status.is_open else window))
        created = seed_line.delivered_at + timedelta(days=self.rng.uniform(earliest, max(earliest, latest)))
        created = min(created, ANCHOR - timedelta(hours=6)).replace(microsecond=0)
        return Plan(seed_line, kind, status, reason, method, created)

    def _seed_line(self, line: dict[str, Any]) -> SeedLine:
        """A line as the ticket builder takes it."""
        order, product = line["order"], line["_product"]
        return ticket_builder.seed_line(
            order, line, product, self.categories[product["category_code"]], goods_minor(order["_lines"])
        )

    def finish(self) -> World:
        """Flatten rows into tables, in id order."""
        for row in self.customer_rows:
            row["created_at"] = row["created_at"].replace(microsecond=0)
        world = World(anchor=ANCHOR)
        world.tables = {
            "categories": category_rows(self.categories.values()),
            "products": self.products,
            "customers": self.customer_rows,
            "orders": [_public(o) for o in sorted(self.order_rows, key=lambda o: o["id"])],
            "order_lines": [
                {**_public(line), "order_id": line["order"]["id"]}
                for line in sorted(self.line_rows, key=lambda x: (x["order"]["id"], x["line_no"]))
            ],
            "tickets": sorted(self.ticket_rows, key=lambda t: t["id"]),
            "ticket_events": [
                {"id": number, **event}
                for number, event in enumerate(sorted(self.event_rows, key=lambda e: e["ticket_id"]), start=1)
            ],
            "ticket_sequences": [{"year": y, "last_value": n} for y, n in sorted(self.sequences.items())],
        }
        contacts = {row["id"]: row for row in self.customer_rows}
        world.stories = {
            key: {
                "order_id": ref["order"]["id"],
                "customer_id": ref["customer_id"],
                "email": contacts[ref["customer_id"]]["email"],
                "phone": contacts[ref["customer_id"]]["phone"],
                "sku": ref["sku"],
                **({"ticket_id": ref["ticket_id"]} if "ticket_id" in ref else {}),
            }
            for key, ref in self.story_refs.items()
        }
        return world


def _public(row: dict[str, Any]) -> dict[str, Any]:
    """Drop the builder's private keys (those starting with an underscore) and object links."""
    return {k: v for k, v in row.items() if not k.startswith("_") and k != "order"}

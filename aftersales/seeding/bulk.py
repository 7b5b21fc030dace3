"""Large deterministic worlds written straight into the database in batches, with a progress bar.

The baseline (generator.py) is hand-shaped around story records; this streams millions of rows instead:
orders and lines first, then exactly N tickets on eligible delivered lines, numbered in creation order.
Chunks are built and written by worker processes, each from its own seed drawn in order from the world's
generator, so the same arguments always give the same rows whatever the number of workers.
"""

import multiprocessing
import os
import random
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, insert

from aftersales.domain.enums import OrderStatus, TicketKind, TicketStatus
from aftersales.domain.policy import CATEGORY_POLICIES, KIND_STATUSES, THRESHOLDS, CategoryPolicy, Thresholds
from aftersales.seeding import generator
from aftersales.seeding.orders import (
    advance_event_sequence,
    category_rows,
    goods_minor,
    order_number,
    order_rows,
    order_status_for,
)
from aftersales.seeding.ticket_builder import (
    Plan,
    Scheduled,
    SeedLine,
    build,
    draw_method,
    draw_reason,
    open_for_days,
    schedule,
    seed_line,
)
from aftersales.storage.bulk import COLUMNS, as_row, bulk_mode, sql_time, write_rows
from aftersales.storage.models import Base

BATCH = 20_000
WORKERS = max(1, min(4, os.cpu_count() or 1))
EVENT_SLOTS = 32  # event ids are ticket ordinal * 32 + position: unique without coordinating between workers
RETURN_KINDS: list[TicketKind] = [k for k in TicketKind if k is not TicketKind.REPAIR]
OPEN_STATUSES = {kind: [s for s in statuses if s.is_open] for kind, statuses in KIND_STATUSES.items()}
# The statuses of tickets opened more than a few days ago: most are completed.
SETTLED = [TicketStatus.COMPLETED] * 8 + [TicketStatus.REJECTED, TicketStatus.CANCELLED]


class Progress:
    """A one-line progress bar on stderr."""

    def __init__(self, label: str, total: int, enabled: bool) -> None:
        self.label, self.total, self.enabled, self.done, self.started = label, total, enabled, 0, time.monotonic()

    def advance(self, count: int) -> None:
        """Count `count` more rows done and redraw."""
        self.done += count
        if not self.enabled:
            return
        share = self.done / self.total if self.total else 1.0
        elapsed = time.monotonic() - self.started
        bar = "#" * int(share * 30)
        sys.stderr.write(f"\r{self.label:<8} [{bar:<30}] {share:6.1%} {self.done:>11,}/{self.total:,} {elapsed:6.1f}s")
        if self.done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def generate_into(
    engine: Engine,
    customers: int,
    orders: int,
    tickets: int,
    seed: int = generator.DEFAULT_SEED,
    progress: bool = True,
    anchor: datetime = generator.ANCHOR,
    thresholds: Thresholds = THRESHOLDS,
    categories: Sequence[CategoryPolicy] = CATEGORY_POLICIES,
) -> dict[str, int]:
    """Write a world of the given size into an empty, migrated database; return rows written per table."""
    rng = random.Random(seed)
    builder = generator.Builder(rng, categories)
    builder.catalogue()
    builder.customers(customers)
    url = engine.url.render_as_string(hide_password=False)
    written = dict.fromkeys(("categories", "products", "customers", *COLUMNS, "ticket_sequences"), 0)
    engine.dispose()  # SQLite leaves WAL mode only with no other connection open
    with engine.connect() as connection:
        bulk_mode(connection, on=True)
        with connection.begin():
            for name, rows in (
                ("categories", category_rows(categories)),
                ("products", builder.products),
                ("customers", builder.customer_rows),
            ):
                connection.execute(insert(Base.metadata.tables[name]), rows)
                written[name] = len(rows)
        with ProcessPoolExecutor(max_workers=WORKERS, mp_context=multiprocessing.get_context("spawn")) as pool:
            eligible = _orders(pool, url, builder, rng, orders, anchor, written, Progress("orders", orders, progress))
            if tickets > len(eligible):
                raise ValueError(
                    f"{tickets:,} tickets need as many eligible delivered lines; only {len(eligible):,} "
                    "exist. Generate more orders."
                )
            chosen = rng.sample(eligible, tickets)
            sequences = _tickets(
                pool, url, rng, chosen, anchor, thresholds, written, Progress("tickets", tickets, progress)
            )
        rows = [{"year": year, "last_value": value} for year, value in sorted(sequences.items())]
        with connection.begin():
            if rows:
                connection.execute(insert(Base.metadata.tables["ticket_sequences"]), rows)
            advance_event_sequence(connection)
        written["ticket_sequences"] = len(rows)
        bulk_mode(connection, on=False)
    return written


def _batches(rows: list[Any], size: int = BATCH) -> Iterator[list[Any]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


def seed_of(rng: random.Random) -> int:
    """A chunk seed drawn from the world's generator."""
    return rng.getrandbits(64)


def _orders(
    pool: ProcessPoolExecutor,
    url: str,
    builder: generator.Builder,
    rng: random.Random,
    count: int,
    anchor: datetime,
    written: dict[str, int],
    progress: Progress,
) -> list[SeedLine]:
    """Write orders and lines in placement order; return the delivered lines a ticket could be about."""
    ages = sorted((rng.uniform(1, rng.choice([45, 400, 400])) for _ in range(count)), reverse=True)
    numbers: dict[int, int] = {}
    jobs = []
    for chunk in _batches(ages):
        # Order numbers run per year across chunks, so each chunk learns where its years start.
        job = (url, seed_of(rng), chunk, dict(numbers), builder.products, len(builder.customer_rows), anchor)
        jobs.append((*job, builder.categories))
        for age in chunk:
            year = (anchor - timedelta(days=age)).year
            numbers[year] = numbers.get(year, 0) + 1
    eligible: list[SeedLine] = []
    for orders_written, lines_written, lines in pool.map(_order_chunk, jobs):
        eligible.extend(lines)
        written["orders"] += orders_written
        written["order_lines"] += lines_written
        progress.advance(orders_written)
    return eligible


def _order_chunk(job: tuple[Any, ...]) -> tuple[int, int, list[SeedLine]]:
    """Build and write one chunk of orders and lines; return the counts and the ticket-eligible lines."""
    url, chunk_seed, ages, numbers, products, customers, anchor, categories = job
    rng, sqlite = random.Random(chunk_seed), url.startswith("sqlite")
    order_table: list[tuple[Any, ...]] = []
    line_table: list[tuple[Any, ...]] = []
    eligible: list[SeedLine] = []
    for age in ages:
        placed = (anchor - timedelta(days=age)).replace(microsecond=0)
        numbers[placed.year] = numbers.get(placed.year, 0) + 1
        status = order_status_for(rng, anchor - placed)
        # Larger worlds carry more lines per order, so a million tickets need fewer order rows.
        picks = rng.sample(range(len(products)), k=rng.choices((1, 2, 3), cum_weights=(30, 70, 100))[0])
        items = [(products[p], rng.choices((1, 2, 3), cum_weights=(80, 95, 100))[0]) for p in picks]
        order_id = order_number(placed.year, numbers[placed.year])
        customer_id = f"C-{rng.randint(1, customers):05d}"
        order, lines = order_rows(rng, order_id, customer_id, placed, status, items, anchor)
        order_table.append(as_row("orders", order, sqlite))
        line_table.extend(as_row("order_lines", line, sqlite) for line in lines)
        # A ticket needs a day after delivery to be opened in, so lines delivered today are not eligible.
        if status is OrderStatus.DELIVERED and anchor - order["delivered_at"] > timedelta(days=1):
            goods = goods_minor(lines)
            eligible.extend(
                seed_line(order, line, product, categories[product["category_code"]], goods)
                for line, (product, _) in zip(lines, items, strict=True)
                if product["returnable"] or (product["repairable"] and product["warranty_months"] > 0)
            )
    write_rows(url, [("orders", order_table), ("order_lines", line_table)])
    return len(order_table), len(line_table), eligible


def _tickets(
    pool: ProcessPoolExecutor,
    url: str,
    rng: random.Random,
    chosen: list[SeedLine],
    anchor: datetime,
    thresholds: Thresholds,
    written: dict[str, int],
    progress: Progress,
) -> dict[int, int]:
    """Write one ticket per chosen line, numbered per year in creation order; return the last number per year."""
    scheduled, sequences = schedule((_plan(rng, line, anchor) for line in chosen), thresholds)
    jobs = [
        (url, seed_of(rng), start, anchor, thresholds, chunk)
        for start, chunk in zip(range(0, len(scheduled), BATCH), _batches(scheduled), strict=True)
    ]
    for tickets_written, events_written in pool.map(_ticket_chunk, jobs):
        written["tickets"] += tickets_written
        written["ticket_events"] += events_written
        progress.advance(tickets_written)
    return sequences


def _ticket_chunk(job: tuple[Any, ...]) -> tuple[int, int]:
    """Build and write one chunk of tickets with their timelines; return the counts."""
    url, chunk_seed, start, anchor, thresholds, scheduled = job
    rng, sqlite = random.Random(chunk_seed), url.startswith("sqlite")
    ticket_table: list[tuple[Any, ...]] = []
    event_table: list[tuple[Any, ...]] = []
    ticket: Scheduled
    for ordinal, ticket in enumerate(scheduled, start=start):
        row, events = build(rng, ticket, anchor, thresholds)
        # Generated tickets, as the baseline's, name no channel they were raised in (nor do their events, last field).
        ticket_table.append(as_row("tickets", {**row, "channel": None}, sqlite))
        event_table.extend(
            (
                ordinal * EVENT_SLOTS + position,
                ticket.ticket_id,
                sql_time(moment, sqlite),
                event.value,
                actor,
                note,
                None,
            )
            for position, (moment, event, actor, note) in enumerate(events, start=1)
        )
    write_rows(url, [("tickets", ticket_table), ("ticket_events", event_table)])
    return len(ticket_table), len(event_table)


def _plan(rng: random.Random, line: SeedLine, anchor: datetime) -> Plan:
    """Choose a kind that fits the line's age, a creation time inside its window, and a status for that age."""
    age = (anchor - line.delivered_at).total_seconds() / 86400
    window, warranty = open_for_days(line, TicketKind.RETURN_AND_REFUND), open_for_days(line, TicketKind.REPAIR)
    kinds = RETURN_KINDS if line.returnable else []
    if line.repairable and warranty and (age > window or not kinds or rng.random() < 0.15):
        kinds = [TicketKind.REPAIR]
    kind = rng.choice(kinds)
    limit = warranty if kind is TicketKind.REPAIR else window
    latest = max(0.05, min(age - 0.05, limit - 0.05))
    created = line.delivered_at + timedelta(days=rng.uniform(min(0.05, latest), latest))
    created = min(created, anchor - timedelta(hours=6)).replace(microsecond=0)
    recent = anchor - created < timedelta(days=5)
    status = rng.choice(OPEN_STATUSES[kind] + [TicketStatus.COMPLETED]) if recent else rng.choice(SETTLED)
    return Plan(line, kind, status, draw_reason(rng, kind), draw_method(rng, kind), created)

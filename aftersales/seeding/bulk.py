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
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from sqlalchemy import Connection, Engine, insert

from aftersales.domain.enums import OrderStatus, ReasonCode, RefundMethod, TicketKind, TicketStatus
from aftersales.domain.policy import KIND_STATUSES
from aftersales.domain.refunds import LineFacts, compute_refund
from aftersales.seeding import generator
from aftersales.seeding.catalog import CUSTOMER_WORDS, PRODUCTS
from aftersales.seeding.timelines import timeline_for
from aftersales.storage.database import WRITE, make_engine
from aftersales.storage.models import Base

BATCH = 20_000
WORKERS = max(1, min(4, os.cpu_count() or 1))
EVENT_SLOTS = 32  # event ids are ticket ordinal * 32 + position: unique without coordinating between workers
RETURN_KINDS = [k for k in TicketKind if k is not TicketKind.REPAIR]
REASONS = list(ReasonCode)
METHODS = [m.value for m in RefundMethod]
OPEN_STATUSES = {kind: [s for s in statuses if s.is_open] for kind, statuses in KIND_STATUSES.items()}
CLOSED = [TicketStatus.COMPLETED] * 8 + [TicketStatus.REJECTED, TicketStatus.CANCELLED]
# Catalogue positions a ticket can be about: returnable, or repairable under a warranty.
ELIGIBLE = [returnable or (repairable and warranty > 0) for _, _, _, warranty, returnable, repairable in PRODUCTS]
COLUMNS = {
    "orders": (
        "id",
        "customer_id",
        "channel",
        "payment_method",
        "status",
        "currency",
        "placed_at",
        "shipped_at",
        "delivered_at",
        "shipping_fee_minor",
        "discount_minor",
    ),
    "order_lines": ("order_id", "line_no", "sku", "quantity", "unit_price_minor", "discount_minor"),
    "tickets": (
        "id",
        "order_id",
        "line_no",
        "customer_id",
        "quantity",
        "kind",
        "reason_code",
        "description",
        "refund_method",
        "currency",
        "item_amount_minor",
        "restocking_fee_minor",
        "shipping_refund_minor",
        "refund_total_minor",
        "status",
        "created_by",
        "created_at",
        "updated_at",
    ),
    "ticket_events": ("id", "ticket_id", "occurred_at", "type", "actor", "note"),
}


class Line(NamedTuple):
    """What ticket generation needs to remember about one delivered line."""

    order_id: str
    line_no: int
    customer_id: str
    delivered_at: datetime
    product: int  # index into the catalogue
    quantity: int
    unit_price_minor: int
    discount_minor: int
    order_goods_minor: int
    shipping_fee_minor: int


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
) -> dict[str, int]:
    """Write a world of the given size into an empty, migrated database; return rows written per table."""
    rng = random.Random(seed)
    builder = generator.Builder(rng)
    builder.catalogue()
    builder.customers(customers)
    url = engine.url.render_as_string(hide_password=False)
    written = dict.fromkeys(("categories", "products", "customers", *COLUMNS, "ticket_sequences"), 0)
    engine.dispose()  # SQLite leaves WAL mode only with no other connection open
    with engine.connect() as connection:
        _bulk_mode(connection, on=True)
        with connection.begin():
            for name, rows in (
                ("categories", generator.category_rows()),
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
                pool, url, builder, rng, chosen, anchor, written, Progress("tickets", tickets, progress)
            )
        rows = [{"year": year, "last_value": value} for year, value in sorted(sequences.items())]
        with connection.begin():
            if rows:
                connection.execute(insert(Base.metadata.tables["ticket_sequences"]), rows)
            generator.advance_event_sequence(connection)
        written["ticket_sequences"] = len(rows)
        _bulk_mode(connection, on=False)
    return written


def _bulk_mode(connection: Connection, on: bool) -> None:
    """Drop secondary indexes (and on SQLite leave WAL) for the load; rebuild them once at the end."""
    indexes = [index for table in COLUMNS for index in Base.metadata.tables[table].indexes]
    with connection.begin():
        for index in indexes:
            (index.drop if on else index.create)(connection)
    if connection.dialect.name == "sqlite":
        raw = connection.connection.dbapi_connection  # outside any transaction, where journal changes must run
        assert raw is not None
        raw.execute("PRAGMA journal_mode=DELETE" if on else "PRAGMA journal_mode=WAL")


_worker_engines: dict[str, Engine] = {}


def _write(url: str, batches: list[tuple[str, list[tuple[Any, ...]]]]) -> None:
    """Insert row tuples (in COLUMNS order) with raw executemany in one transaction, from a worker process."""
    engine = _worker_engines.get(url)
    if engine is None:
        engine = _worker_engines[url] = make_engine(url, wal=False)
    with engine.connect() as connection:
        # Workers write concurrently: on SQLite each takes the write lock up front (BEGIN IMMEDIATE), since two
        # deferred writers can deadlock in rollback-journal mode.
        connection.execution_options(**{WRITE: True})
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            raw = connection.connection.dbapi_connection
            assert raw is not None
            # A generated world can be generated again; journaling and fsyncs buy nothing here.
            for pragma in ("journal_mode=MEMORY", "synchronous=OFF", "foreign_keys=OFF", "cache_size=-131072"):
                raw.execute(f"PRAGMA {pragma}")
        marker = "?" if sqlite else "%s"
        with connection.begin():
            for table, rows in batches:
                columns = COLUMNS[table]
                statement = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join([marker] * len(columns))})"
                connection.exec_driver_sql(statement, rows)


def _batches(rows: list[Any], size: int = BATCH) -> Iterator[list[Any]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


def seed_of(rng: random.Random) -> int:
    """A chunk seed drawn from the world's generator."""
    return rng.getrandbits(64)


def sql_time(moment: datetime | None, sqlite: bool) -> Any:
    """A timestamp as the dialect stores it: SQLAlchemy's SQLite text format, or the datetime itself."""
    if moment is None or not sqlite:
        return moment
    return moment.isoformat(" ", "microseconds")[:26]  # drops the +00:00 that SQLAlchemy does not store


def _orders(
    pool: ProcessPoolExecutor,
    url: str,
    builder: "generator.Builder",
    rng: random.Random,
    count: int,
    anchor: datetime,
    written: dict[str, int],
    progress: Progress,
) -> list[Line]:
    """Write orders and lines in placement order; return the delivered lines a ticket could be about."""
    ages = sorted((rng.uniform(1, rng.choice([45, 400, 400])) for _ in range(count)), reverse=True)
    numbers: dict[int, int] = {}
    jobs = []
    for chunk in _batches(ages):
        # Order numbers run per year across chunks, so each chunk learns where its years start.
        jobs.append((url, seed_of(rng), chunk, dict(numbers), builder.products, len(builder.customer_rows), anchor))
        for age in chunk:
            year = (anchor - timedelta(days=age)).year
            numbers[year] = numbers.get(year, 0) + 1
    eligible: list[Line] = []
    for orders_written, lines_written, lines in pool.map(_order_chunk, jobs):
        eligible.extend(lines)
        written["orders"] += orders_written
        written["order_lines"] += lines_written
        progress.advance(orders_written)
    return eligible


def _order_chunk(job: tuple[Any, ...]) -> tuple[int, int, list[Line]]:
    """Build and write one chunk of orders and lines; return the counts and the ticket-eligible lines."""
    url, chunk_seed, ages, numbers, products, customers, anchor = job
    rng, sqlite = random.Random(chunk_seed), url.startswith("sqlite")
    order_rows: list[tuple[Any, ...]] = []
    line_rows: list[tuple[Any, ...]] = []
    eligible: list[Line] = []
    for age in ages:
        placed = (anchor - timedelta(days=age)).replace(microsecond=0)
        numbers[placed.year] = numbers.get(placed.year, 0) + 1
        status = generator.order_status_for(rng, anchor - placed)
        # Larger worlds carry more lines per order, so a million tickets need fewer order rows.
        picks = rng.sample(range(len(products)), k=rng.choices((1, 2, 3), cum_weights=(30, 70, 100))[0])
        items = [(products[p], rng.choices((1, 2, 3), cum_weights=(80, 95, 100))[0]) for p in picks]
        order_id = f"O-{placed.year}-{numbers[placed.year]:06d}"
        customer_id = f"C-{rng.randint(1, customers):05d}"
        order, lines = generator.order_rows(rng, order_id, customer_id, placed, status, items, anchor)
        times = [sql_time(order[k], sqlite) for k in ("placed_at", "shipped_at", "delivered_at")]
        order_rows.append(
            (
                order_id,
                customer_id,
                order["channel"],
                order["payment_method"],
                order["status"],
                order["currency"],
                *times,
                order["shipping_fee_minor"],
                order["discount_minor"],
            )
        )
        line_rows.extend(
            (order_id, x["line_no"], x["sku"], x["quantity"], x["unit_price_minor"], x["discount_minor"]) for x in lines
        )
        # A ticket needs a day after delivery to be opened in, so lines delivered today are not eligible.
        if status is OrderStatus.DELIVERED and anchor - order["delivered_at"] > timedelta(days=1):
            goods = sum(x["unit_price_minor"] * x["quantity"] - x["discount_minor"] for x in lines)
            eligible.extend(
                Line(
                    order_id,
                    x["line_no"],
                    customer_id,
                    order["delivered_at"],
                    p,
                    x["quantity"],
                    x["unit_price_minor"],
                    x["discount_minor"],
                    goods,
                    order["shipping_fee_minor"],
                )
                for x, p in zip(lines, picks, strict=True)
                if ELIGIBLE[p]
            )
    _write(url, [("orders", order_rows), ("order_lines", line_rows)])
    return len(order_rows), len(line_rows), eligible


def _tickets(
    pool: ProcessPoolExecutor,
    url: str,
    builder: "generator.Builder",
    rng: random.Random,
    chosen: list[Line],
    anchor: datetime,
    written: dict[str, int],
    progress: Progress,
) -> dict[int, int]:
    """Write one ticket per chosen line, numbered per year in creation order; return the last number per year."""
    plans = sorted((_plan(rng, builder.products[line.product], line, anchor) for line in chosen), key=lambda p: p[1])
    sequences: dict[int, int] = {}
    jobs = []
    for start, chunk in zip(range(0, len(plans), BATCH), _batches(plans), strict=True):
        numbered = []
        for line, created, kind, status in chunk:
            sequences[created.year] = sequences.get(created.year, 0) + 1
            numbered.append((line, created, kind, status, f"T-{created.year}-{sequences[created.year]:04d}"))
        jobs.append((url, seed_of(rng), start, builder.products, anchor, numbered))
    for tickets_written, events_written in pool.map(_ticket_chunk, jobs):
        written["tickets"] += tickets_written
        written["ticket_events"] += events_written
        progress.advance(tickets_written)
    return sequences


def _ticket_chunk(job: tuple[Any, ...]) -> tuple[int, int]:
    """Build and write one chunk of tickets with their timelines; return the counts."""
    url, chunk_seed, start, products, anchor, numbered = job
    rng, sqlite = random.Random(chunk_seed), url.startswith("sqlite")
    ticket_rows: list[tuple[Any, ...]] = []
    event_rows: list[tuple[Any, ...]] = []
    for ordinal, (line, created, kind, status, ticket_id) in enumerate(numbered, start=start):
        ticket, events = _ticket(rng, products, line, created, kind, status, anchor, ticket_id, sqlite)
        ticket_rows.append(ticket)
        event_rows.extend(
            (ordinal * EVENT_SLOTS + position, ticket_id, sql_time(moment, sqlite), event.value, actor, note)
            for position, (moment, event, actor, note) in enumerate(events, start=1)
        )
    _write(url, [("tickets", ticket_rows), ("ticket_events", event_rows)])
    return len(ticket_rows), len(event_rows)


def _plan(
    rng: random.Random, product: dict[str, Any], line: Line, anchor: datetime
) -> tuple[Line, datetime, TicketKind, TicketStatus]:
    """Choose a kind that fits the line's age, a creation time inside its window, and a status for that age."""
    age = (anchor - line.delivered_at).total_seconds() / 86400
    window = generator.WINDOWS[product["category_code"]]
    warranty = 30 * product["warranty_months"]
    kinds = RETURN_KINDS if product["returnable"] else []
    if product["repairable"] and warranty and (age > window or not kinds or rng.random() < 0.15):
        kinds = [TicketKind.REPAIR]
    kind = rng.choice(kinds)
    limit = warranty if kind is TicketKind.REPAIR else window
    latest = max(0.05, min(age - 0.05, limit - 0.05))
    created = line.delivered_at + timedelta(days=rng.uniform(min(0.05, latest), latest))
    created = min(created, anchor - timedelta(hours=6)).replace(microsecond=0)
    recent = anchor - created < timedelta(days=5)
    status = rng.choice(OPEN_STATUSES[kind] + [TicketStatus.COMPLETED]) if recent else rng.choice(CLOSED)
    return line, created, kind, status


def _ticket(
    rng: random.Random,
    products: list[dict[str, Any]],
    line: Line,
    created: datetime,
    kind: TicketKind,
    status: TicketStatus,
    anchor: datetime,
    ticket_id: str,
    sqlite: bool,
) -> tuple[tuple[Any, ...], list[Any]]:
    """One ticket row (in COLUMNS order) and its timeline."""
    product = products[line.product]
    reason = ReasonCode.DEFECTIVE if kind is TicketKind.REPAIR else rng.choice(REASONS)
    facts = LineFacts(
        line.unit_price_minor,
        line.quantity,
        line.discount_minor,
        line.order_goods_minor,
        line.shipping_fee_minor,
        generator.FEES[product["category_code"]],
    )
    quantity = rng.randint(1, line.quantity)
    breakdown = compute_refund(facts, quantity, reason, kind)
    reviewed = breakdown.total_minor > generator.REVIEW_ABOVE_MINOR or status in (
        TicketStatus.UNDER_REVIEW,
        TicketStatus.REJECTED,
    )
    events = timeline_for(kind, status, created, rng, anchor, reviewed)
    method = rng.choice(METHODS) if kind.refunds else None
    row = (
        ticket_id,
        line.order_id,
        line.line_no,
        line.customer_id,
        quantity,
        kind.value,
        reason.value,
        rng.choice(CUSTOMER_WORDS[reason.value]),
        method,
        generator.CURRENCY,
        breakdown.item_amount_minor,
        breakdown.restocking_fee_minor,
        breakdown.shipping_refund_minor,
        breakdown.total_minor,
        status.value,
        "seed",
        sql_time(created, sqlite),
        sql_time(events[-1][0], sqlite),
    )
    return row, events

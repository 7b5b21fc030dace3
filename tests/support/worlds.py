"""Worlds for tests: one folder and one PostgreSQL name prefix per run, so each template is built once."""

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import text

from aftersales.domain.callers import ALL_SCOPES, Caller
from aftersales.domain.creation import TicketRequest
from aftersales.domain.enums import ReasonCode, RefundMethod, TicketKind
from aftersales.services.creation import CreationPolicy
from aftersales.settings import Settings
from aftersales.storage.database import make_engine
from aftersales.worlds.model import Place, World, WorldClock
from aftersales.worlds.service import Worlds
from aftersales.worlds.trace import Draft
from tests.support import ROOT

SEED_DIR = ROOT / "seed"
KEYS = ["w" * 40]
PINNED = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
AGENT = Caller("agent", frozenset(ALL_SCOPES))
POLICY = CreationPolicy(
    quote_ttl=timedelta(minutes=30),
    idempotency_ttl=timedelta(hours=24),
    confirm_above_minor=50000,
    review_above_minor=300000,
    review_recent_tickets=3,
    review_window=timedelta(days=30),
)


@dataclass(frozen=True)
class WorldsHome:
    """Where this run's worlds live on each backend."""

    folder: Path
    prefix: str

    def settings(self, database_url: str, data_dir: Path, **changes: Any) -> Settings:
        """Settings for a control database whose worlds live here."""
        return Settings(
            database_url=database_url,
            data_dir=data_dir,
            seed_dir=SEED_DIR,
            worlds_dir=self.folder,
            worlds_prefix=self.prefix,
            **changes,
        )


def home_for_run(folder: Path) -> WorldsHome:
    """A home whose PostgreSQL names cannot meet another run's on a shared server."""
    return WorldsHome(folder=folder, prefix=f"wt{os.getpid()}")


def drop_databases(admin_url: str, prefix: str) -> None:
    """Remove every database a run's worlds left on a PostgreSQL server."""
    admin = make_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        names = connection.scalars(
            text("SELECT datname FROM pg_database WHERE starts_with(datname, :p)"), {"p": f"{prefix}_"}
        ).all()
        for name in names:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@contextmanager
def open_worlds(home: WorldsHome, database_url: str, data_dir: Path, **changes: Any) -> Iterator[Worlds]:
    """A worlds service on a control database; every world it made is dropped afterwards."""
    settings = home.settings(database_url, data_dir, **changes)
    control = make_engine(database_url)
    worlds = Worlds(settings, control, KEYS)
    try:
        yield worlds
    finally:
        for world in worlds.registry.all():
            worlds.drop(world.id)
        worlds.close()
        control.dispose()


def next_number(baseline: Any) -> str:
    """The number the next ticket of 2026 gets in a world made from the baseline dataset."""
    last = next(row["last_value"] for row in baseline.tables["ticket_sequences"] if row["year"] == 2026)
    return f"T-2026-{last + 1:04d}"


def a_world(world_id: str = "w-test", **changes: Any) -> World:
    """A world as the registry would hand it out, frozen at PINNED (no database behind it)."""
    made = World(
        id=world_id,
        state="ready",
        created_at=PINNED,
        last_used_at=PINNED,
        source_kind="baseline",
        source="baseline",
        location=Place("world", world_id),
        origin=Place("template", "t"),
        origin_owned=False,
        anchor_day=datetime(2026, 12, 1, tzinfo=UTC),
        clock=WorldClock("frozen", PINNED),
        start_mode="frozen",
        start_at=PINNED,
    )
    return replace(made, **changes)


def traced_call(world_id: str, tool: str, arguments: dict[str, Any], **changes: Any) -> Draft:
    """A trace draft of one call made in a world at PINNED, as the tracer would write it."""
    return replace(
        Draft(
            world=world_id,
            caller="agent",
            tool=tool,
            protocol="2026-07-28",
            request_id=1,
            arguments=arguments,
            started_at="2026-12-01T09:00:00Z",
            wall_started_at="2026-11-30T08:00:00Z",
            latency_ms=1.5,
        ),
        **changes,
    )


def ticket_request(order_id: str, key: str, description: str = "It stopped working.", **changes: Any) -> TicketRequest:
    """A return-and-refund request for line 1 of an order."""
    request = TicketRequest(
        order_id=order_id,
        line_no=1,
        quantity=1,
        kind=TicketKind.RETURN_AND_REFUND,
        reason=ReasonCode.DEFECTIVE,
        description=description,
        refund_method=RefundMethod.ORIGINAL_PAYMENT,
        quote_id=None,
        idempotency_key=key,
    )
    return replace(request, **changes)

"""Bring a database to a usable state: migrate to head, seed the baseline when empty."""

from pathlib import Path

from sqlalchemy import Engine, func, select

from aftersales.clock import now
from aftersales.seeding import dataset, loader
from aftersales.storage import migrate
from aftersales.storage.models import Customer

BASELINE = "baseline.json"


def baseline_path(seed_dir: Path) -> Path:
    """Where the committed baseline dataset lives."""
    return seed_dir / BASELINE


def is_empty(engine: Engine) -> bool:
    """Whether the database holds no customers yet."""
    with engine.connect() as connection:
        return (connection.scalar(select(func.count()).select_from(Customer)) or 0) == 0


def prepare(engine: Engine, seed_dir: Path, seed_when_empty: bool = True) -> loader.LoadReport | None:
    """Migrate to head and (unless told not to) load the baseline into an empty database; report what was loaded."""
    migrate.upgrade(engine)
    if seed_when_empty and is_empty(engine):
        return loader.load(engine, dataset.read(baseline_path(seed_dir)), now())
    return None

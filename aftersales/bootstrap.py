"""Bring a database to a usable state: migrate to head, seed the baseline when empty."""

from pathlib import Path

from sqlalchemy import Engine, func, select

from aftersales.clock import now
from aftersales.seeding import dataset, loader
from aftersales.seeding.generator import World
from aftersales.storage import migrate
from aftersales.storage.models import Customer

BASELINE = "baseline.json"


class BaselineMissing(ValueError):
    """The seed folder holds no baseline dataset; the message says where it looked and what to set."""


def baseline_path(seed_dir: Path) -> Path:
    """Where the committed baseline dataset lives."""
    return seed_dir / BASELINE


def read_baseline(seed_dir: Path) -> World:
    """The baseline dataset, or a one-line explanation of where it was looked for."""
    path = baseline_path(seed_dir)
    if not path.is_file():
        raise BaselineMissing(
            f"no {BASELINE} in the seed folder {seed_dir} (AFTERSALES_SEED_DIR). Point AFTERSALES_SEED_DIR at a "
            "folder holding it, or unset it to use the seed/ folder shipped with aftersales."
        )
    return dataset.read(path)


def is_empty(engine: Engine) -> bool:
    """Whether the database holds no customers yet."""
    with engine.connect() as connection:
        return (connection.scalar(select(func.count()).select_from(Customer)) or 0) == 0


def prepare(engine: Engine, seed_dir: Path, seed_when_empty: bool = True) -> loader.LoadReport | None:
    """Migrate to head and (unless told not to) load the baseline into an empty database; report what was loaded."""
    migrate.upgrade(engine)
    if seed_when_empty and is_empty(engine):
        return loader.load(engine, read_baseline(seed_dir), now())
    return None

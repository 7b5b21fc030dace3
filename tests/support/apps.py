"""Settings and Apps for tests: on a seeded database, or on none at all."""

from pathlib import Path
from typing import Any

from aftersales.app import App
from aftersales.settings import Settings
from tests.support import ROOT

SEED_DIR = ROOT / "seed"
# Settings that lift the rate limits, for tests that send hundreds of calls a second on purpose.
UNLIMITED = {
    "rate_read_per_minute": 1_000_000,
    "rate_read_burst": 1_000_000,
    "rate_write_per_minute": 1_000_000,
    "rate_write_burst": 1_000_000,
}


def settings_for(url: str, folder: Path, **changes: Any) -> Settings:
    """Settings pointing at `url`, with a private data dir under `folder` and any `changes`."""
    return Settings(database_url=url, data_dir=folder / "var", seed_dir=SEED_DIR, **changes)


def app_without_database(folder: Path, **changes: Any) -> App:
    """An App whose database is never created: for tests that read or write none (keys live in `folder`)."""
    return App(Settings(data_dir=folder, database_url=f"sqlite:///{folder / 'unused.db'}", **changes))

"""Shared fixtures: a migrated, seeded database per test, copied from one template."""

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from aftersales.app import App
from aftersales.bootstrap import baseline_path, prepare
from aftersales.seeding import dataset
from aftersales.seeding.generator import World
from aftersales.settings import REPO_ROOT, Settings
from aftersales.storage.database import make_engine

SEED_DIR = REPO_ROOT / "seed"


@pytest.fixture(scope="session")
def baseline() -> World:
    """The committed baseline dataset."""
    return dataset.read(baseline_path(SEED_DIR))


@pytest.fixture(scope="session")
def template_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to head and loaded with the baseline, built once per run."""
    path = tmp_path_factory.mktemp("template") / "aftersales.db"
    engine = make_engine(f"sqlite:///{path}")
    prepare(engine, SEED_DIR)
    engine.dispose()
    return path


def settings_for(url: str, tmp_path: Path) -> Settings:
    """Settings pointing at `url`, with a private data dir."""
    return Settings(database_url=url, data_dir=tmp_path / "var", seed_dir=SEED_DIR)


@pytest.fixture
def app(template_db: Path, tmp_path: Path) -> Iterator[App]:
    """An App on a private copy of the seeded database."""
    copy = tmp_path / "aftersales.db"
    shutil.copyfile(template_db, copy)
    application = App(settings_for(f"sqlite:///{copy}", tmp_path))
    yield application
    application.close()


@pytest.fixture
def engine(app: App) -> Engine:
    """The seeded database's engine."""
    return app.engine


@pytest.fixture
def empty_engine(tmp_path: Path) -> Iterator[Engine]:
    """An engine on a fresh, empty SQLite file."""
    engine = make_engine(f"sqlite:///{tmp_path / 'empty.db'}")
    yield engine
    engine.dispose()


@pytest.fixture
def stories(baseline: World) -> dict[str, dict[str, str]]:
    """Story records by key (see seed/README.md)."""
    return baseline.stories

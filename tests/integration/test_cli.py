"""The command line against a real SQLite file."""

from sqlalchemy import func, select

from aftersales.cli.main import main
from aftersales.storage.database import make_engine
from aftersales.storage.models import Base


def row_counts(url: str) -> dict[str, int]:
    engine = make_engine(url)
    with engine.connect() as connection:
        counts = {t.name: connection.scalar(select(func.count()).select_from(t)) for t in Base.metadata.sorted_tables}
    engine.dispose()
    return counts


def test_db_upgrade_then_current_reports_head(empty_url, monkeypatch, capsys):
    monkeypatch.setenv("AFTERSALES_DATABASE_URL", empty_url)
    assert main(["db", "current"]) == 1
    assert main(["db", "upgrade"]) == 0
    assert main(["db", "current"]) == 0
    assert "head" in capsys.readouterr().out


def test_seed_load_twice_leaves_every_table_the_same_and_reset_restores_it(empty_url, monkeypatch):
    url = empty_url
    monkeypatch.setenv("AFTERSALES_DATABASE_URL", url)
    assert main(["seed", "load"]) == 0
    first = row_counts(url)
    assert main(["seed", "load"]) == 0
    assert row_counts(url) == first
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.exec_driver_sql("DELETE FROM ticket_events WHERE id <= 5")
    engine.dispose()
    assert main(["seed", "reset"]) == 0
    assert row_counts(url) == first


def test_data_dir_setting_places_the_embedded_database(tmp_path, monkeypatch):
    monkeypatch.delenv("AFTERSALES_DATABASE_URL", raising=False)
    monkeypatch.setenv("AFTERSALES_DATA_DIR", str(tmp_path / "data"))
    assert main(["db", "upgrade"]) == 0
    assert (tmp_path / "data" / "aftersales.db").exists()


def test_production_serve_without_keys_stops_before_touching_the_database(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AFTERSALES_ENV", "production")
    monkeypatch.setenv("AFTERSALES_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("AFTERSALES_SECRET_KEYS", raising=False)
    monkeypatch.delenv("AFTERSALES_DATABASE_URL", raising=False)
    assert main(["serve"]) == 2
    assert "AFTERSALES_SECRET_KEYS is not set" in capsys.readouterr().err
    assert not (tmp_path / "aftersales.db").exists()

"""The command line against a real database."""

import io
import os

import pytest

from aftersales import __version__
from aftersales.app import App
from aftersales.cli.main import main, parser
from aftersales.cli.serve import how_to_connect
from aftersales.clock import now
from aftersales.security import tokens
from aftersales.settings import Settings
from tests.support import database
from tests.support.database import engine_at
from tests.support.free_ports import free_port


def row_counts(url: str) -> dict[str, int]:
    with engine_at(url) as engine:
        return database.row_counts(engine)


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
    with engine_at(url) as engine, engine.begin() as connection:
        connection.exec_driver_sql("DELETE FROM ticket_events WHERE id <= 5")
    assert main(["seed", "reset", "--yes"]) == 0
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


def test_oauth_serve_with_the_issuer_unreachable_stops_in_one_line_naming_it(tmp_path, monkeypatch, capsys):
    issuer = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    monkeypatch.setenv("AFTERSALES_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("AFTERSALES_DATABASE_URL", raising=False)
    monkeypatch.setenv("AFTERSALES_AUTH", "oauth")
    monkeypatch.setenv("AFTERSALES_OAUTH_ISSUER", issuer)
    monkeypatch.setenv("AFTERSALES_OAUTH_RESOURCE", "http://127.0.0.1:8000/mcp")
    assert main(["serve", "--port", "0"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and f"the issuer {issuer} cannot be reached" in lines[0] and "Traceback" not in lines[0]
    assert not (tmp_path / "aftersales.db").exists()  # stopped before the database


def test_serve_in_oauth_mode_names_the_issuer_and_prints_no_token_of_its_own(tmp_path):
    url = "http://127.0.0.1:8000/mcp"
    oauth = Settings(data_dir=tmp_path, auth="oauth", oauth_issuer="https://id.example", oauth_resource=url)
    assert how_to_connect(oauth, ["k" * 40], url) == (
        f"aftersales: OAuth mode: access tokens of https://id.example for {url}"
    )
    assert "export AFTERSALES_TOKEN=" in (how_to_connect(Settings(data_dir=tmp_path), ["k" * 40], url) or "")


def test_pinning_where_the_platform_cannot_pin_is_one_line_before_anything_else_is_checked(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.delattr(os, "sched_setaffinity")  # as on macOS
    # Production without keys: were pinning not checked first, the missing keys would be the one line instead.
    monkeypatch.setenv("AFTERSALES_ENV", "production")
    monkeypatch.setenv("AFTERSALES_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("AFTERSALES_SECRET_KEYS", raising=False)
    monkeypatch.delenv("AFTERSALES_DATABASE_URL", raising=False)
    for command, setting in ((["serve", "--pin-cpus"], "false"), (["serve", "--port", "0"], "true")):
        monkeypatch.setenv("AFTERSALES_PIN_CPUS", setting)  # the flag turns pinning on over a setting that is off
        assert main(command) == 2, command
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert "--pin-cpus (AFTERSALES_PIN_CPUS) is not available on this platform" in err
        assert "Drop --pin-cpus or set AFTERSALES_PIN_CPUS=false" in err
    assert not (tmp_path / "aftersales.db").exists()


def test_seed_reset_without_yes_and_without_a_terminal_changes_nothing(empty_url, monkeypatch, capsys):
    monkeypatch.setenv("AFTERSALES_DATABASE_URL", empty_url)
    assert main(["seed", "load"]) == 0
    before = row_counts(empty_url)
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))  # not a terminal: a script must say --yes
    assert main(["seed", "reset"]) == 2
    err = capsys.readouterr().err
    assert "--yes" in err and len(err.strip().splitlines()) == 1
    assert row_counts(empty_url) == before


def test_seed_reset_asks_on_a_terminal_and_only_yes_deletes(empty_url, monkeypatch, capsys):
    monkeypatch.setenv("AFTERSALES_DATABASE_URL", empty_url)
    assert main(["seed", "load"]) == 0
    with engine_at(empty_url) as engine, engine.begin() as connection:
        connection.exec_driver_sql("DELETE FROM ticket_events WHERE id <= 5")
    edited = row_counts(empty_url)
    for answer, status in (("n\n", 1), ("\n", 1), ("yes\n", 0)):
        monkeypatch.setattr("sys.stdin", Terminal(answer))
        assert main(["seed", "reset"]) == status
        assert "deletes every row" in capsys.readouterr().out
        if status:
            assert row_counts(empty_url) == edited
    assert row_counts(empty_url)["ticket_events"] == edited["ticket_events"] + 5


class Terminal(io.StringIO):
    """Standard input as a person at a terminal."""

    def isatty(self) -> bool:
        return True


def test_the_default_data_dir_is_the_same_from_any_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("AFTERSALES_DATA_DIR")
    monkeypatch.delenv("AFTERSALES_DATABASE_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    urls = set()
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
        monkeypatch.chdir(tmp_path / folder)
        urls.add(Settings().resolved_database_url)
    assert urls == {f"sqlite:///{tmp_path / 'xdg' / 'aftersales' / 'aftersales.db'}"}


def test_without_xdg_data_home_the_data_dir_is_under_the_home_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("AFTERSALES_DATA_DIR")
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert Settings().data_dir == tmp_path / ".local" / "share" / "aftersales"


def test_a_token_issued_in_one_directory_is_accepted_by_a_server_started_in_another(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("AFTERSALES_DATA_DIR")
    monkeypatch.delenv("AFTERSALES_SECRET_KEYS", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    for folder in ("here", "there"):
        (tmp_path / folder).mkdir()
    monkeypatch.chdir(tmp_path / "here")
    assert main(["token", "issue", "--caller", "support-bot"]) == 0
    out, err = capsys.readouterr()
    assert f"data dir {tmp_path / 'xdg' / 'aftersales'}" in err and "aftersales.db" in err
    monkeypatch.chdir(tmp_path / "there")
    claims = tokens.verify(App(Settings()).caller_keys, out.strip(), now())
    assert claims.caller.id == "support-bot"


def test_a_setting_the_service_cannot_use_is_one_line_naming_the_variable(monkeypatch, capsys):
    monkeypatch.setenv("AFTERSALES_PORT", "eighty")
    assert main(["db", "current"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "AFTERSALES_PORT='eighty'" in err and "integer" in err


@pytest.mark.parametrize("port", ["70000", "65536", "-1"])
def test_a_port_out_of_range_is_refused_naming_the_setting(port, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AFTERSALES_DATABASE_URL", f"sqlite:///{tmp_path / 'fresh.db'}")
    monkeypatch.setenv("AFTERSALES_PORT", port)
    assert main(["db", "upgrade"]) == 2
    err = capsys.readouterr().err
    assert err == f"aftersales: AFTERSALES_PORT='{port}' is not accepted: a port is 0 (any free one) to 65535\n"
    assert not (tmp_path / "fresh.db").exists()


@pytest.mark.parametrize("port", ["70000", "65536", "-1"])
@pytest.mark.parametrize("command", ["serve", "demo"])
def test_a_port_option_out_of_range_is_refused_naming_the_option(command, port, capsys):
    with pytest.raises(SystemExit) as stopped:
        parser().parse_args([command, "--port", port])  # parsed only: the old code went on to serve on another port
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --port: '{port}' is not accepted: a port is 0 (any free one) to 65535" in err
    assert "AFTERSALES_HOST" not in err


def test_an_unknown_aftersales_variable_is_warned_about_once_naming_the_closest_setting(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AFTERSALES_DATABASE_URL", f"sqlite:///{tmp_path / 'fresh.db'}")
    monkeypatch.setenv("AFTERSALES_PROT", "9000")
    monkeypatch.setenv("AFTERSALES_TOKEN", "an agent's token")  # read by an agent under `aftersales eval`, on purpose
    assert main(["db", "upgrade"]) == 0
    err = capsys.readouterr().err
    assert (
        err == "aftersales: warning: AFTERSALES_PROT is not a setting and is ignored; did you mean AFTERSALES_PORT?\n"
    )
    assert main(["db", "current"]) == 0
    assert capsys.readouterr().err == ""  # once per process


def test_an_unreachable_postgresql_is_one_line_without_the_password(monkeypatch, capsys):
    url = f"postgresql+psycopg://aftersales:sup3r-secret@127.0.0.1:{free_port()}/aftersales"
    monkeypatch.setenv("AFTERSALES_DATABASE_URL", url)
    for command in (["db", "upgrade"], ["seed", "load"], ["serve", "--port", "0"]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert "sup3r-secret" not in err and "Traceback" not in err
        *_, last = err.splitlines()  # serve says where its data is first
        assert last.startswith("aftersales: the database at postgresql+psycopg://aftersales:***@127.0.0.1"), command
        assert "Connection refused" in last and "AFTERSALES_DATABASE_URL" in last


def test_a_database_whose_driver_is_not_installed_is_the_same_one_line_as_other_unusable_urls(monkeypatch, capsys):
    # SQLAlchemy knows the mysql dialect; its default driver (MySQLdb) is not among this project's dependencies.
    monkeypatch.setenv("AFTERSALES_DATABASE_URL", "mysql://shop:sup3r-secret@127.0.0.1/aftersales")
    for command in (["db", "current"], ["seed", "load"], ["world", "list"], ["serve", "--port", "0"]):
        assert main(command) == 2, command
        err = capsys.readouterr().err
        assert "Traceback" not in err and "sup3r-secret" not in err, command
        *_, last = err.splitlines()
        assert last.startswith("aftersales: AFTERSALES_DATABASE_URL is not a database URL aftersales can use"), last
        assert "the mysql driver needs the Python module MySQLdb, which is not installed" in last
        assert "postgresql+psycopg://" in last


def test_a_missing_seed_folder_is_one_line_naming_the_setting(empty_url, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AFTERSALES_DATABASE_URL", empty_url)
    monkeypatch.setenv("AFTERSALES_SEED_DIR", str(tmp_path / "nowhere"))
    assert main(["seed", "load"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "AFTERSALES_SEED_DIR" in err and str(tmp_path / "nowhere") in err


def test_a_token_that_would_never_be_valid_is_refused(monkeypatch, capsys):
    for ttl in ("0", "0s", "-5m"):
        assert main(["token", "issue", "--caller", "support-bot", f"--ttl={ttl}"]) == 2
        out, err = capsys.readouterr()
        assert out == "" and ("--ttl" in err or "not a duration" in err), ttl


def test_version_prints_the_package_version(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out.strip() == f"aftersales {__version__}"

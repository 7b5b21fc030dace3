"""docker-compose.yml, Dockerfile and .env.example: checked here because no Docker engine runs on these machines."""

import os
import re
import shutil
import subprocess
import tomllib
from datetime import timedelta
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement

from aftersales.settings import Settings
from tests.support import ROOT, docs

COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
ENV_EXAMPLE = {
    line.split("=", 1)[0]: line.split("=", 1)[1]
    for line in (ROOT / ".env.example").read_text().splitlines()
    if line and not line.startswith("#")
}
README = docs.page("README.md")
SETTINGS_PAGE = docs.page("docs/reference.md")  # the Settings table
PRODUCTION = docs.page("docs/production.md")
LAYOUT = docs.section(docs.page("docs/development.md"), "## Layout")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_compose_runs_postgres_a_one_shot_migration_and_the_server():
    assert set(SERVICES) == {"postgres", "migrate", "server", "replicas", "balancer"}
    assert {name for name, service in SERVICES.items() if "profiles" not in service} == {
        "postgres",
        "migrate",
        "server",
    }
    assert re.fullmatch(r"postgres:\d+(\.\d+)?(-\w+)?", SERVICES["postgres"]["image"])
    assert "pgdata" in COMPOSE["volumes"] and any(v.startswith("pgdata:") for v in SERVICES["postgres"]["volumes"])
    assert SERVICES["migrate"]["restart"] == "no"
    assert "db upgrade" in " ".join(SERVICES["migrate"]["command"]) and "--if-empty" in " ".join(
        SERVICES["migrate"]["command"]
    )


def test_every_long_running_service_has_a_healthcheck_and_the_server_probes_readyz():
    assert "pg_isready" in " ".join(SERVICES["postgres"]["healthcheck"]["test"])
    assert "/readyz" in " ".join(SERVICES["server"]["healthcheck"]["test"])


def test_the_server_starts_after_a_healthy_database_and_a_completed_migration():
    assert SERVICES["migrate"]["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    assert SERVICES["server"]["depends_on"] == {
        "postgres": {"condition": "service_healthy"},
        "migrate": {"condition": "service_completed_successfully"},
    }
    assert any(port.endswith(":8000") for port in SERVICES["server"]["ports"])


def test_every_variable_compose_uses_is_in_env_example():
    used = set(re.findall(r"(?<!\$)\$\{(\w+)(?::?-[^}]*)?\}", (ROOT / "docker-compose.yml").read_text()))
    assert used and used <= set(ENV_EXAMPLE) and "LOAD_DEMO_BASELINE" in used


def test_every_server_setting_in_env_example_exists_and_is_documented_in_the_settings_page():
    fields = {f"AFTERSALES_{name.upper()}" for name in Settings.model_fields}
    for name in ENV_EXAMPLE:
        if name.startswith("AFTERSALES_") and name != "AFTERSALES_PUBLISHED_PORT":
            assert name in fields, name
            assert f"`{name}`" in SETTINGS_PAGE, name


def test_env_example_holds_placeholders_not_secrets():
    for name in ("POSTGRES_PASSWORD", "AFTERSALES_SECRET_KEYS", "AFTERSALES_STATE_KEYS"):
        assert ENV_EXAMPLE[name].startswith("replace-me"), name


def test_production_refuses_the_env_example_placeholders(tmp_path):
    from aftersales.security.keys import KeyConfigurationError, key_ring

    with pytest.raises(KeyConfigurationError, match="placeholder"):
        key_ring(
            ENV_EXAMPLE["AFTERSALES_SECRET_KEYS"],
            env="production",
            data_dir=tmp_path,
            name="k",
            variable="AFTERSALES_SECRET_KEYS",
        )


def test_the_image_is_slim_runs_as_a_non_root_user_without_dev_dependencies():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.\d+-slim", dockerfile, re.M)
    users = re.findall(r"^USER (\S+)", dockerfile, re.M)
    assert users and users[-1] not in ("root", "0")
    assert "[dev]" not in dockerfile and ".[dev]" not in dockerfile
    assert 'CMD ["aftersales", "serve"]' in dockerfile


UPGRADE_FAILS_FOREVER = 10**6


def run_migrate_step(
    tmp_path: Path, load_demo_baseline: str | None, upgrade_failures: int = 0, succeeds: bool = True
) -> list[str]:
    """Run the migrate service's command as its container would, with a stand-in `aftersales`; return its calls.

    The stand-in's `db upgrade` fails its first `upgrade_failures` times, as against a database not yet taking
    connections. The pause between attempts is cut to nothing; the number of attempts is the compose file's.
    """
    calls, bin_dir = tmp_path / "calls", tmp_path / "bin"
    bin_dir.mkdir(parents=True)
    fake = bin_dir / "aftersales"
    fake.write_text(
        f'#!/bin/sh\necho "$*" >> {calls}\n[ "$1 $2" = "db upgrade" ] || exit 0\n'
        f'[ "$(grep -c "^db upgrade" {calls})" -gt {upgrade_failures} ]\n'
    )
    fake.chmod(0o755)
    environment = SERVICES["migrate"]["environment"]
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "MIGRATE_ATTEMPTS": environment["MIGRATE_ATTEMPTS"]}
    env["MIGRATE_PAUSE"] = "0"
    if load_demo_baseline is not None:
        # Compose's interpolation of ${LOAD_DEMO_BASELINE:-no} from .env, done by hand here.
        env["LOAD_DEMO_BASELINE"] = load_demo_baseline or "no"
    else:
        env["LOAD_DEMO_BASELINE"] = re.fullmatch(r"\$\{LOAD_DEMO_BASELINE:-(\w+)\}", environment["LOAD_DEMO_BASELINE"])[
            1
        ]
    argv = [part.replace("$$", "$") for part in SERVICES["migrate"]["command"]]  # compose turns $$ into $
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    assert (done.returncode == 0) == succeeds, done.stderr
    return calls.read_text().splitlines() if calls.exists() else []


def test_the_migrate_step_loads_the_demo_baseline_only_when_asked(tmp_path):
    assert run_migrate_step(tmp_path / "unset", None) == ["db upgrade"]
    assert run_migrate_step(tmp_path / "no", "no") == ["db upgrade"]
    assert run_migrate_step(tmp_path / "empty", "") == ["db upgrade"]
    assert run_migrate_step(tmp_path / "yes", "yes") == ["db upgrade", "seed load --if-empty"]
    assert ENV_EXAMPLE["LOAD_DEMO_BASELINE"] == "no"


def test_the_migrate_step_tries_the_upgrade_again_while_the_database_is_not_taking_connections(tmp_path):
    assert run_migrate_step(tmp_path / "slow", "yes", upgrade_failures=3) == ["db upgrade"] * 4 + [
        "seed load --if-empty"
    ]
    attempts = int(SERVICES["migrate"]["environment"]["MIGRATE_ATTEMPTS"])
    pause = int(SERVICES["migrate"]["environment"]["MIGRATE_PAUSE"])
    assert attempts * pause >= 60  # a minute at least: longer than PostgreSQL takes to initialise a fresh volume
    never = run_migrate_step(tmp_path / "never", "yes", upgrade_failures=UPGRADE_FAILS_FOREVER, succeeds=False)
    assert never == ["db upgrade"] * attempts  # then it fails, and the server does not start


def test_the_database_is_healthy_only_once_it_takes_connections_over_tcp():
    # The image's init-time server on a fresh volume listens only on its Unix socket; `pg_isready` without `-h`
    # would find it there and call the database healthy before the real server listens.
    check = " ".join(SERVICES["postgres"]["healthcheck"]["test"])
    words = check.split()
    assert words[words.index("pg_isready") + 1 : words.index("pg_isready") + 3] == ["-h", "127.0.0.1"]
    assert "-U $${POSTGRES_USER}" in check and "-d $${POSTGRES_DB}" in check


def test_env_example_accepts_the_published_port_whatever_it_is():
    for name in ("AFTERSALES_ALLOWED_HOSTS", "AFTERSALES_ALLOWED_ORIGINS"):
        entries = ENV_EXAMPLE[name].split(",")
        assert entries and all(entry.endswith(":*") for entry in entries), name  # ":*" matches any port
    assert not re.search(r":\d+", ENV_EXAMPLE["AFTERSALES_ALLOWED_HOSTS"] + ENV_EXAMPLE["AFTERSALES_ALLOWED_ORIGINS"])


def test_env_example_and_the_readme_give_the_baseline_s_own_counts():
    from aftersales.bootstrap import baseline_path
    from aftersales.seeding import dataset

    tables = dataset.read(baseline_path(ROOT / "seed")).tables
    figures = {
        "customers": len(tables["customers"]),
        "orders": len(tables["orders"]),
        "tickets": len(tables["tickets"]),
    }
    texts = {".env.example": (ROOT / ".env.example").read_text(), "README intro": README.split("\n## ", 1)[0]}
    for where, text in texts.items():
        stated = re.findall(r"(\d[\d,]*) (customers|orders|tickets)\b", text)
        assert stated, where
        for number, table in stated:
            assert int(number.replace(",", "")) == figures[table], (where, number, table)


def test_the_database_password_never_sits_inside_a_url():
    for name in ("migrate", "server"):
        environment = SERVICES[name]["environment"]
        url = environment["AFTERSALES_DATABASE_URL"]
        assert "POSTGRES_PASSWORD" not in url and url.startswith("postgresql+psycopg://${POSTGRES_USER}@postgres:"), (
            name
        )
        assert environment["PGPASSWORD"] == "${POSTGRES_PASSWORD}", name  # libpq reads it; no encoding needed
    assert "PGPASSWORD" in PRODUCTION


def test_one_image_is_built_once_for_the_migration_and_the_server():
    built = [name for name, service in SERVICES.items() if "build" in service]
    assert built == ["server"]
    assert SERVICES["migrate"]["image"] == SERVICES["server"]["image"]
    assert SERVICES["migrate"]["pull_policy"] == "never"  # a local image: never look for it in a registry


def test_the_image_installs_dependencies_before_copying_the_source():
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    first_install = next(i for i, line in enumerate(lines) if "pip install" in line)
    copies = {i: line.split()[1] for i, line in enumerate(lines) if line.startswith("COPY ")}
    assert copies[min(copies)] == "pyproject.toml" and min(copies) < first_install
    source = min(i for i, path in copies.items() if path == "aftersales")
    assert first_install < source
    assert "pip install -e" not in "\n".join(lines)  # the wheel, with migrations/ and seed/ inside it


def test_the_dockerfile_dependency_step_yields_exactly_the_project_dependencies_and_the_otel_extra(tmp_path):
    dockerfile = (ROOT / "Dockerfile").read_text()
    step = re.search(r"^RUN (python -c .*?) > requirements\.txt", dockerfile, re.M)[1]
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    done = subprocess.run(["sh", "-c", step], cwd=tmp_path, capture_output=True, text=True, check=True)
    project = PYPROJECT["project"]
    assert done.stdout.splitlines() == project["dependencies"] + project["optional-dependencies"]["otel"]


def test_everything_the_wheel_build_needs_is_copied_into_the_image():
    dockerfile = (ROOT / "Dockerfile").read_text()
    copied = {part for line in dockerfile.splitlines() if line.startswith("COPY ") for part in line.split()[1:-1]}
    wheel = PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]
    needed = {PYPROJECT["project"]["readme"], "LICENSE", *wheel["packages"], *wheel["force-include"]}
    assert needed <= copied
    ignored = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()}
    assert not needed & ignored and all((ROOT / path).exists() for path in needed)


def test_every_dependency_has_an_upper_bound_so_a_release_cannot_break_make_test():
    declared = PYPROJECT["project"]["dependencies"] + [
        requirement for extra in PYPROJECT["project"]["optional-dependencies"].values() for requirement in extra
    ]
    declared += PYPROJECT["build-system"]["requires"]
    for text in declared:
        requirement = Requirement(text)
        assert any(spec.operator in ("<", "<=", "==", "~=") for spec in requirement.specifier), text


def test_the_license_file_is_the_license_pyproject_declares():
    assert PYPROJECT["project"]["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")


def test_make_serve_keeps_its_data_in_the_checkout_var_folder():
    env = {name: value for name, value in os.environ.items() if name != "AFTERSALES_DATA_DIR"}
    done = subprocess.run(["make", "-n", "serve"], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert "AFTERSALES_DATA_DIR=var .venv/bin/aftersales serve" in done.stdout.splitlines()


def test_every_setting_is_documented_in_the_settings_page():
    for name in Settings.model_fields:
        assert f"`AFTERSALES_{name.upper()}`" in SETTINGS_PAGE, name


def settings_row(name: str) -> list[str]:
    """The settings table's cells for one variable (docs/reference.md)."""
    row = next(line for line in SETTINGS_PAGE.splitlines() if line.startswith(f"| `{name}` |"))
    return [cell.strip() for cell in row.strip("|").split("|")]


def test_the_documented_seed_dir_default_is_the_one_the_code_uses_from_any_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("AFTERSALES_SEED_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    assert Settings().seed_dir == ROOT / "seed"  # a checkout's own seed/, not one relative to the current directory
    _, default, _ = settings_row("AFTERSALES_SEED_DIR")
    assert "shipped with the package" in default and "./" not in default


def test_the_layout_names_every_route_the_web_app_serves(tmp_path):
    from aftersales.app import App
    from aftersales.web.app import create_web_app

    app = App(Settings(data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'unused.db'}"))
    paths = {getattr(route, "path", "") for route in create_web_app(app).routes} - {""}
    web_line = next(line for line in LAYOUT.splitlines() if line.strip().startswith("web/"))
    assert paths and all(path in web_line for path in paths), paths


HAPROXY = (ROOT / "deploy" / "haproxy" / "haproxy.cfg").read_text()


def haproxy_lines(keyword: str) -> list[list[str]]:
    """The words of each line of the shipped HAProxy configuration that starts with `keyword`."""
    return [line.split() for line in HAPROXY.splitlines() if line.split()[:1] == [keyword]]


def test_the_scale_profile_puts_the_official_haproxy_image_with_the_shipped_file_in_front_of_the_replicas():
    replicas, balancer = SERVICES["replicas"], SERVICES["balancer"]
    assert replicas["profiles"] == balancer["profiles"] == ["scale"]
    assert replicas["environment"] == SERVICES["server"]["environment"] and "ports" not in replicas
    assert replicas["healthcheck"] == SERVICES["server"]["healthcheck"]
    assert replicas["depends_on"] == SERVICES["server"]["depends_on"]
    assert balancer["image"] == "haproxy:2.6"  # the branch of Debian's package, which the tests run
    assert "./deploy/haproxy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in balancer["volumes"]
    assert balancer["depends_on"] == {"replicas": {"condition": "service_healthy"}}
    # One address per server line, each a container of the replicas service.
    servers = [words[2] for words in haproxy_lines("server")]
    count = replicas["deploy"]["replicas"]
    assert servers == [f'"${{REPLICA{number}}}"' for number in range(1, count + 1)]
    assert balancer["environment"] == {
        f"REPLICA{number}": f"{COMPOSE['name']}-replicas-{number}:8000" for number in range(1, count + 1)
    }
    port = next(words[2] for words in haproxy_lines("presetenv") if words[1] == "BALANCER_PORT")
    assert balancer["ports"] == [f"${{BALANCER_PUBLISHED_PORT}}:{port}"]


def test_the_balancer_waits_longer_than_a_question_or_an_idle_session_lives():
    settings = Settings.model_construct()
    longest = max(settings.state_ttl, settings.session_idle_timeout)
    timeouts = {words[1]: words[2] for words in haproxy_lines("timeout")}
    for side in ("client", "server"):
        assert re.fullmatch(r"\d+m", timeouts[side]) and timedelta(minutes=int(timeouts[side][:-1])) > longest, side
    expire = next(words for words in haproxy_lines("stick-table") if "100k" in words)
    assert timedelta(minutes=int(expire[expire.index("expire") + 1][:-1])) > settings.session_idle_timeout


def test_the_production_page_shows_the_shipped_balancer_rules_as_they_are():
    block = PRODUCTION.split("```haproxy\n", 1)[1].split("```", 1)[0]
    shipped = {line.strip() for line in HAPROXY.splitlines()}
    shown = [line.split("#", 1)[0].strip() for line in block.splitlines()]
    assert shown and all(line in shipped for line in shown if line), [line for line in shown if line not in shipped]

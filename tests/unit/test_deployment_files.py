"""docker-compose.yml, Dockerfile and .env.example: checked here because no Docker engine runs on these machines."""

import re

import pytest
import yaml

from aftersales.settings import Settings
from tests.support import ROOT

COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
ENV_EXAMPLE = {
    line.split("=", 1)[0]: line.split("=", 1)[1]
    for line in (ROOT / ".env.example").read_text().splitlines()
    if line and not line.startswith("#")
}
README = (ROOT / "README.md").read_text()


def test_compose_runs_postgres_a_one_shot_migration_and_the_server():
    assert set(SERVICES) == {"postgres", "migrate", "server"}
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
    used = set(re.findall(r"(?<!\$)\$\{(\w+)\}", (ROOT / "docker-compose.yml").read_text()))
    assert used and used <= set(ENV_EXAMPLE)


def test_every_server_setting_in_env_example_exists_and_is_documented_in_the_readme():
    fields = {f"AFTERSALES_{name.upper()}" for name in Settings.model_fields}
    for name in ENV_EXAMPLE:
        if name.startswith("AFTERSALES_") and name != "AFTERSALES_PUBLISHED_PORT":
            assert name in fields, name
            assert f"`{name}`" in README, name


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


def test_every_setting_is_documented_in_the_readme():
    for name in Settings.model_fields:
        assert f"`AFTERSALES_{name.upper()}`" in README, name

"""AFTERSALES_* variables that no setting reads: named with the closest setting, unless read elsewhere on purpose."""

import re

import pytest
from pydantic import ValidationError

from aftersales.settings import NOT_SETTINGS, Settings, unknown_variables
from tests.support import ROOT

SETTINGS = {f"AFTERSALES_{name.upper()}" for name in Settings.model_fields}


def test_a_misspelt_variable_is_named_with_the_closest_setting_and_a_far_one_with_none():
    found = unknown_variables({"AFTERSALES_PROT": "9000", "aftersales_workres": "2", "AFTERSALES_ZZZZ": "1"})
    assert found == {
        "AFTERSALES_PROT": "AFTERSALES_PORT",
        "aftersales_workres": "AFTERSALES_WORKERS",
        "AFTERSALES_ZZZZ": None,
    }


def test_settings_and_variables_read_elsewhere_on_purpose_are_not_unknown():
    assert unknown_variables(dict.fromkeys(SETTINGS | NOT_SETTINGS | {"PATH", "AFTERSALES"}, "x")) == {}


def test_every_aftersales_variable_the_project_names_is_a_setting_or_one_read_elsewhere_on_purpose():
    # A variable added to the harness, the tests or the docs without a setting would be warned about on every run.
    texts = [ROOT / name for name in ("README.md", ".env.example", "docker-compose.yml", "Makefile", "Dockerfile")]
    for folder in ("aftersales", "tests", "bench", "examples", "docs"):
        texts += [path for path in (ROOT / folder).rglob("*") if path.suffix in (".py", ".md", ".mjs", ".yml", ".toml")]
    named = {name for path in texts for name in re.findall(r"AFTERSALES_[A-Z0-9_]*[A-Z0-9]\b", path.read_text())}
    # Prefixes the docs write as AFTERSALES_RATE_* and the names tests make up to check the warning itself.
    made_up = {"AFTERSALES_PROT", "AFTERSALES_ZZZZ", "AFTERSALES_RATE", "AFTERSALES_REVIEW"}
    assert named - SETTINGS - NOT_SETTINGS - made_up == set()


def test_oauth_mode_without_its_issuer_or_resource_is_refused_naming_both():
    with pytest.raises(ValidationError, match="AFTERSALES_OAUTH_ISSUER and AFTERSALES_OAUTH_RESOURCE"):
        Settings(auth="oauth")
    assert Settings(auth="oauth", oauth_issuer="https://id.example", oauth_resource="https://shop.example/mcp")

"""The harness's model settings: one line naming the setting when a model cannot be used; usage summed exactly."""

from decimal import Decimal

import pytest

from aftersales.testing.llm import ModelChoice, ModelUnavailable, Spend, Usage, build, settings_for


def test_the_model_comes_from_the_roles_variables_and_the_command_line_wins():
    env = {"AFTERSALES_JUDGE_MODEL": "openai:gpt-4.1", "AFTERSALES_JUDGE_SEED": "7"}
    assert ModelChoice.from_env("judge", env=env) == ModelChoice("judge", "openai:gpt-4.1", seed=7)
    assert ModelChoice.from_env("judge", "anthropic:claude-sonnet-4-5", env=env).model == "anthropic:claude-sonnet-4-5"


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({}, "AFTERSALES_CUSTOMER_MODEL"),
        ({"AFTERSALES_CUSTOMER_MODEL": "x", "AFTERSALES_CUSTOMER_SEED": "one"}, "SEED"),
    ],
)
def test_a_missing_model_or_a_bad_seed_is_refused_naming_the_setting(env: dict[str, str], named: str):
    with pytest.raises(ModelUnavailable, match=named):
        ModelChoice.from_env("customer", env=env)


def test_temperature_is_zero_and_the_seed_is_passed_only_when_set():
    assert settings_for(ModelChoice("customer", "m")) == {"temperature": 0.0}
    assert settings_for(ModelChoice("customer", "m", seed=3)) == {"temperature": 0.0, "seed": 3}


def test_a_key_for_a_provider_other_than_openai_is_refused_naming_the_variable(monkeypatch: pytest.MonkeyPatch):
    with pytest.raises(ModelUnavailable, match="AFTERSALES_CUSTOMER_API_KEY is used with openai"):
        build(ModelChoice("customer", "anthropic:claude-sonnet-4-5", api_key="k"))


def test_spend_sums_tokens_and_exact_prices_and_an_unknown_price_makes_the_total_unknown():
    spend = Spend()
    spend.add(Usage("m", "v", 1, 100, 20, "0.00012"))
    spend.add(Usage("m", "v", 1, 50, 10, "0.00003"))
    assert spend.as_json() == {"requests": 2, "input_tokens": 150, "output_tokens": 30, "cost_usd": "0.00015"}
    assert spend.cost_usd == Decimal("0.00015")
    spend.add(Usage("m", "v", 1, 1, 1, None))
    assert spend.as_json()["cost_usd"] is None and spend.input_tokens == 151

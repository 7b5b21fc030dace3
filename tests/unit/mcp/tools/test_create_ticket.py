"""The policy creation applies comes from the settings, and the tests' POLICY is what the default settings give."""

from dataclasses import asdict
from datetime import timedelta

from aftersales.domain.policy import THRESHOLDS
from aftersales.mcp.tools.create_ticket import creation_policy
from aftersales.settings import Settings
from tests.support.creation import POLICY


def test_the_tests_policy_is_the_shops_thresholds_with_the_default_lifetimes_of_quotes_and_keys():
    defaults = Settings.model_construct()
    lifetimes = {"quote_ttl": defaults.quote_ttl, "idempotency_ttl": defaults.idempotency_ttl}
    assert asdict(POLICY) == asdict(THRESHOLDS) | lifetimes


def test_the_create_tool_applies_the_configured_thresholds_and_lifetimes():
    changed = {"confirm_above_minor": 1, "review_window": timedelta(days=3), "quote_ttl": timedelta(minutes=5)}
    policy = creation_policy(Settings.model_construct(**changed))
    assert (policy.confirm_above_minor, policy.review_window, policy.quote_ttl) == tuple(changed.values())
    assert (policy.review_above_minor, policy.idempotency_ttl) == (THRESHOLDS.review_above_minor, timedelta(hours=24))

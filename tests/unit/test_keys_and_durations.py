"""Key rings from settings, and the duration syntax of settings and flags."""

from datetime import timedelta

import pytest

from aftersales.durations import describe_duration, parse_duration
from aftersales.security.keys import KeyConfigurationError, key_ring

STRONG = "k" * 40


def test_production_without_keys_refuses_to_start_and_says_how_to_fix_it(tmp_path):
    with pytest.raises(KeyConfigurationError, match="AFTERSALES_SECRET_KEYS is not set"):
        key_ring(None, env="production", data_dir=tmp_path, name="secret_keys", variable="AFTERSALES_SECRET_KEYS")


def test_production_refuses_a_key_under_32_bytes(tmp_path):
    with pytest.raises(KeyConfigurationError, match="shorter than 32 bytes"):
        key_ring(f"{STRONG},short", env="production", data_dir=tmp_path, name="k", variable="AFTERSALES_SECRET_KEYS")


def test_configured_keys_keep_their_order_so_the_first_signs(tmp_path):
    ring = key_ring(f" {STRONG}, {'z' * 40} ", env="production", data_dir=tmp_path, name="k", variable="V")
    assert ring == [STRONG, "z" * 40]


def test_development_generates_one_key_keeps_it_private_and_reuses_it(tmp_path):
    first = key_ring(None, env="development", data_dir=tmp_path, name="secret_keys", variable="V")
    again = key_ring(None, env="development", data_dir=tmp_path, name="secret_keys", variable="V")
    assert first == again and len(first[0]) >= 32
    assert (tmp_path / "secret_keys").stat().st_mode & 0o077 == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("90s", timedelta(seconds=90)),
        ("30m", timedelta(minutes=30)),
        ("12h", timedelta(hours=12)),
        ("30d", timedelta(days=30)),
        ("1800", timedelta(minutes=30)),
        (600, timedelta(minutes=10)),
    ],
)
def test_durations_accept_seconds_minutes_hours_and_days(text, expected):
    assert parse_duration(text) == expected


def test_a_bad_duration_names_the_accepted_forms():
    with pytest.raises(ValueError, match="for example 30m or 30d"):
        parse_duration("thirty minutes")


@pytest.mark.parametrize(
    ("duration", "words"),
    [
        (timedelta(seconds=45), "45 seconds"),
        (timedelta(seconds=1), "1 second"),
        (timedelta(seconds=90), "90 seconds"),
        (timedelta(minutes=1), "1 minute"),
        (timedelta(minutes=30), "30 minutes"),
        (timedelta(hours=12), "12 hours"),
        (timedelta(days=30), "30 days"),
    ],
)
def test_a_lifetime_is_stated_in_the_largest_unit_that_is_exact(duration, words):
    assert describe_duration(duration) == words

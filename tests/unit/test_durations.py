"""The duration syntax of settings and flags, and lifetimes stated in words."""

from datetime import timedelta

import pytest

from aftersales.durations import describe_duration, parse_duration


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


@pytest.mark.parametrize("value", ["99999999999d", 10**40, float("nan")])
def test_a_duration_past_what_a_timedelta_holds_is_a_value_error_not_an_overflow(value):
    with pytest.raises(ValueError, match="too long"):
        parse_duration(value)

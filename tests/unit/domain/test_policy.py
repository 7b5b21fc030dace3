"""The shop's policy in one place: when a warranty of whole months ends."""

from datetime import UTC, datetime

import pytest

from aftersales.domain.policy import add_months


@pytest.mark.parametrize(
    ("start", "months", "same_day_later"),
    [
        (datetime(2026, 3, 15, 10, 30, tzinfo=UTC), 12, datetime(2027, 3, 15, 10, 30, tzinfo=UTC)),
        (datetime(2026, 1, 31, tzinfo=UTC), 1, datetime(2026, 2, 28, tzinfo=UTC)),
        (datetime(2028, 1, 31, tzinfo=UTC), 1, datetime(2028, 2, 29, tzinfo=UTC)),
        (datetime(2026, 11, 30, tzinfo=UTC), 3, datetime(2027, 2, 28, tzinfo=UTC)),
        (datetime(2026, 5, 31, tzinfo=UTC), 24, datetime(2028, 5, 31, tzinfo=UTC)),
    ],
)
def test_a_warranty_of_n_months_ends_on_the_same_day_or_the_last_day_of_a_shorter_month(start, months, same_day_later):
    assert add_months(start, months) == same_day_later

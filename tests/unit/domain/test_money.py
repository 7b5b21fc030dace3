"""Formatting money for people."""

import pytest

from aftersales.domain.money import format_money


@pytest.mark.parametrize(
    ("minor", "currency", "shown"),
    [
        (129900, "CNY", "¥1,299.00"),
        (5, "CNY", "¥0.05"),
        (0, "USD", "$0.00"),
        (123456789, "EUR", "€1,234,567.89"),
        (1000, "JPY", "10.00 JPY"),
    ],
)
def test_minor_units_are_shown_with_symbol_separators_and_two_decimals(minor, currency, shown):
    assert format_money(minor, currency) == shown

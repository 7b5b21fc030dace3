"""Tool calls as counted, without a database: the one nearest-rank percentile definition, exact integer arithmetic."""

import math
from fractions import Fraction

import pytest

from aftersales.domain.calls import nearest_rank, percentile


@pytest.mark.parametrize(
    ("count", "fraction", "rank"),
    [(1, 0.5, 1), (1, 0.95, 1), (4, 0.5, 2), (10, 0.5, 5), (20, 0.95, 19), (21, 0.95, 20), (100, 0.07, 7), (3, 1.0, 3)],
)
def test_nearest_rank_is_the_ceiling_of_count_times_fraction(count, fraction, rank):
    assert nearest_rank(count, fraction) == rank


def test_nearest_rank_is_exact_where_floating_point_would_round_up():
    # 100 * 0.07 is 7.000000000000001 in floating point, whose ceiling would wrongly be 8.
    assert math.ceil(100 * 0.07) == 8
    for fraction in ("0.07", "0.5", "0.9", "0.95", "0.99", "0.999"):
        for count in range(1, 3001):
            assert nearest_rank(count, float(fraction)) == math.ceil(count * Fraction(fraction))


@pytest.mark.parametrize("fraction", [0.0, -0.5, 1.5, 0.00001])
def test_a_fraction_outside_zero_to_one_is_refused(fraction):
    with pytest.raises(ValueError, match="percentile fraction"):
        nearest_rank(10, fraction)


def test_percentile_takes_the_value_at_the_nearest_rank():
    assert percentile([], 0.5) == 0.0
    assert percentile([30.0, 10.0, 20.0, 40.0], 0.5) == 20.0
    assert percentile([float(v) for v in range(20, 0, -1)], 0.95) == 19.0

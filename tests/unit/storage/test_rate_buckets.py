"""The rate buckets' statements as asyncpg takes them: numbered markers, each typed by its value."""

from aftersales.storage.rate_buckets import numbered_params


def test_a_name_used_twice_keeps_one_number_and_each_marker_is_cast_to_its_values_type():
    sql, values = numbered_params(
        "SELECT %(now)s - %(then)s, %(who)s, %(now)s + %(step)s", {"now": 10.5, "then": 2, "who": "a", "step": 1.0}
    )
    assert sql == "SELECT $1::float8 - $2::float8, $3::text, $1::float8 + $4::float8"
    assert values == (10.5, 2.0, "a", 1.0) and type(values[1]) is float

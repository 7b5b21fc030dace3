"""Pages newest first: a page's rows and where the next one starts, and what a refused cursor tells the caller."""

from datetime import UTC, datetime, timedelta

from aftersales.domain.paging import Listing, Position, another_search, cut, not_issued

POSITION = Position(datetime(2026, 11, 23, 18, 0, 0, 123456, tzinfo=UTC), "O-2026-001423")


def test_a_page_keeps_limit_rows_and_the_last_ones_position_only_when_another_row_follows():
    rows = [Position(POSITION.at - timedelta(days=n), f"O-2026-{n:06d}") for n in range(4)]
    assert cut(rows, 3, lambda row: row) == (rows[:3], rows[2])
    assert cut(rows, 4, lambda row: row) == (rows, None)
    assert cut([], 4, lambda row: row) == ([], None)


def test_a_refused_cursor_is_named_cut_short_in_three_parts_that_say_to_start_again():
    cursor = "x" * 200
    for refusal in (not_issued(cursor), another_search(cursor, Listing("after_sales_list_tickets", "order_id:O-1"))):
        assert refusal.what.startswith(f'cursor "{"x" * 37}..."') and len(refusal.what) < 120
        assert refusal.rule.startswith("A cursor ") and "Call again" in refusal.next_step

"""Canonical snapshots and diffs on rows in memory: what is normalised, what is kept, how changes are listed."""

import json
from datetime import UTC, datetime, timedelta

from aftersales.worlds.diff import describe, diff
from aftersales.worlds.snapshot import canonical, digest, known, relative

ORIGIN = datetime(2026, 12, 1, tzinfo=UTC)
AT = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
RAW_QUOTE, OTHER_QUOTE = "5c1e4c3e-0d1f-4f8a-9d55-1f2e3d4c5b6a", "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d"


def quote(quote_id: str, created: datetime, owner: str = "agent") -> dict:
    return {
        "id": quote_id,
        "owner": owner,
        "order_id": "O-2026-001394",
        "line_no": 1,
        "quantity": 1,
        "created_at": created,
        "expires_at": created + timedelta(minutes=30),
    }


def record(quote_id: str) -> dict:
    arguments = json.dumps({"order_id": "O-2026-001394", "quote_id": quote_id}, sort_keys=True)
    result = json.dumps({"ticket": {"created_at": "2026-12-01T09:00:00Z", "ticket_id": "T-2026-0385"}})
    return {
        "id": 17,
        "caller": "agent",
        "tool": "after_sales_create_ticket",
        "key": "key-00000001",
        "arguments": arguments,
        "result": result,
        "ticket_id": "T-2026-0385",
        "created_at": AT,
        "expires_at": AT + timedelta(hours=24),
    }


def event(event_id: int, ticket: str, at: datetime, kind: str) -> dict:
    return {"id": event_id, "ticket_id": ticket, "occurred_at": at, "type": kind, "actor": "system", "note": ""}


def test_times_are_written_as_days_and_time_of_day_from_the_anchor_day():
    assert relative(AT, ORIGIN) == "day+0T09:00:00Z"
    assert relative(datetime(2026, 11, 28, 18, 20, 5, 250000, tzinfo=UTC), ORIGIN) == "day-3T18:20:05.250000Z"
    assert relative(datetime(2026, 12, 9, 0, 0), ORIGIN) == "day+8T00:00:00Z"  # naive, as SQLite hands it back


def test_quote_ids_are_named_by_order_of_appearance_wherever_they_occur():
    rows = {
        "quotes": [quote(RAW_QUOTE, AT + timedelta(minutes=5)), quote(OTHER_QUOTE, AT)],
        "idempotency_records": [record(RAW_QUOTE)],
    }
    snapshot = canonical(rows, ORIGIN, audit=False)
    assert [row["id"] for row in snapshot["tables"]["quotes"]] == ["quote#1", "quote#2"]
    stored = snapshot["tables"]["idempotency_records"][0]
    assert stored["arguments"] == {"order_id": "O-2026-001394", "quote_id": "quote#2"}
    assert stored["result"]["ticket"]["created_at"] == "day+0T09:00:00Z"
    assert "id" not in stored
    assert snapshot["keys"]["idempotency_records"] == ["caller", "tool", "key"]


def test_two_runs_with_other_random_ids_and_other_row_numbers_give_one_hash():
    first = {
        "quotes": [quote(RAW_QUOTE, AT)],
        "idempotency_records": [record(RAW_QUOTE)],
        "ticket_events": [event(7, "T-1", AT, "created"), event(8, "T-1", AT, "approved")],
    }
    second = {
        "quotes": [quote(OTHER_QUOTE, AT)],
        "idempotency_records": [record(OTHER_QUOTE) | {"id": 3}],
        "ticket_events": [event(52, "T-1", AT, "approved"), event(51, "T-1", AT, "created")],
    }
    one, two = canonical(first, ORIGIN, False), canonical(second, ORIGIN, False)
    assert one == two and digest(one) == digest(two)
    assert [(e["seq"], e["type"]) for e in one["tables"]["ticket_events"]] == [(1, "created"), (2, "approved")]


def test_the_hash_ignores_where_the_clock_started_but_not_what_the_rows_hold():
    rows = {"quotes": [quote(RAW_QUOTE, AT)]}
    later = {"quotes": [quote(RAW_QUOTE, AT + timedelta(days=7))]}
    same_day_shape = canonical(later, ORIGIN + timedelta(days=7), False)
    assert digest(canonical(rows, ORIGIN, False)) == digest(same_day_shape)
    assert digest(canonical(rows, ORIGIN, False)) != digest(canonical(later, ORIGIN, False))


def test_a_diff_lists_added_removed_and_changed_rows_by_key():
    before = canonical({"ticket_sequences": [{"year": 2026, "last_value": 384}], "quotes": []}, ORIGIN, False)
    after_rows = {"ticket_sequences": [{"year": 2026, "last_value": 385}], "quotes": [quote(RAW_QUOTE, AT)]}
    result = diff(before, canonical(after_rows, ORIGIN, False), "source", "world w-1")
    assert not result["identical"]
    assert result["summary"] == {
        "quotes": {"added": 1, "removed": 0, "changed": 0},
        "ticket_sequences": {"added": 0, "removed": 0, "changed": 1},
    }
    assert result["tables"]["quotes"]["added"][0]["key"] == {"id": "quote#1"}
    assert result["tables"]["ticket_sequences"]["changed"] == [
        {"key": {"year": 2026}, "fields": {"last_value": {"before": 384, "after": 385}}}
    ]
    text = describe(result)
    assert "world w-1 against source: quotes (1 added), ticket_sequences (1 changed)" in text
    assert "  ~ 2026  last_value: 384 -> 385" in text
    assert "  + quote#1  owner=agent, order_id=O-2026-001394" in text


def test_identical_snapshots_give_an_empty_diff():
    snapshot = canonical({"quotes": [quote(RAW_QUOTE, AT)]}, ORIGIN, False)
    result = diff(snapshot, snapshot, "a", "b")
    assert (result["identical"], result["tables"], result["summary"]) == (True, {}, {})
    assert describe(result).startswith("b against a: identical")


def test_a_snapshot_made_from_an_earlier_one_reuses_only_tables_whose_rows_and_quote_names_are_unchanged():
    earlier_quote = quote(OTHER_QUOTE, AT + timedelta(minutes=10))
    start = {"quotes": [earlier_quote], "idempotency_records": [record(OTHER_QUOTE)]}
    before = known(start, ORIGIN, audit=False)
    # A quote made earlier in the day than the one the record names renumbers it: quote#1 becomes quote#2. The
    # record's row is as it was, but its canonical form is not, so it must not be taken from the earlier snapshot.
    after = {"quotes": [quote(RAW_QUOTE, AT), earlier_quote], "idempotency_records": [record(OTHER_QUOTE)]}
    reused = canonical(after, ORIGIN, audit=False, before=before)
    assert reused == canonical(after, ORIGIN, audit=False)
    assert reused["tables"]["idempotency_records"][0]["arguments"]["quote_id"] == "quote#2"
    # Nothing changed: every table is the earlier snapshot's own, and the hash is the one computed afresh.
    same = canonical(start, ORIGIN, audit=False, before=before)
    assert same["tables"]["idempotency_records"] is before.snapshot["tables"]["idempotency_records"]
    assert digest(same) == digest(canonical(start, ORIGIN, audit=False)) == digest(same, before)
    assert digest(reused, before) == digest(reused)  # reused tables' JSON written once, the same bytes


def test_a_payout_request_is_kept_without_its_token_digest_and_its_sealed_account_and_named_by_its_order():
    payout = {
        "id": RAW_QUOTE,
        "token_digest": "ab" * 32,
        "status": "used",
        "reference": "PO-1A2B3C4D",
        "account_mask": "•••• 5432",
        "sealed": "gAAAAABsealed-account",
        "created_at": AT,
    }
    (row,) = canonical({"payout_requests": [payout]}, ORIGIN, audit=False)["tables"]["payout_requests"]
    assert "token_digest" not in row and "sealed" not in row
    assert row["account_mask"] == "•••• 5432" and row["reference"] == "PO-1A2B3C4D"
    assert row["id"] == "payout#1"  # a random id in a world made without --deterministic

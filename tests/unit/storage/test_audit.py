"""Audit rows fit for both databases: secrets hidden, text cut to the model's widths, JSON that always encodes."""

import json
from datetime import UTC, datetime

from aftersales.storage.audit import ARGUMENTS_LIMIT, arguments_json, redact, row_of
from aftersales.storage.models import ToolCall
from tests.support.audit import call_record


def test_every_text_column_is_cut_to_the_width_the_model_declares():
    row = row_of(call_record(caller="c" * 999, tool="t" * 999, outcome="o" * 999, error_kind="k" * 999))
    for column in ("caller", "tool", "outcome", "error_kind"):
        assert len(row[column]) == ToolCall.__table__.c[column].type.length
        assert row[column].endswith("…")


def test_arguments_json_encodes_as_utf8_and_reads_back_as_sent():
    sent = {"ticket_id": "T-2026-0357\ud800", "note": "nul\x00 and 退货 \udfff", "\ud83dkey": 1}
    text = arguments_json(sent)
    text.encode("utf-8")  # what every driver does; a raw surrogate here killed the writer
    assert "\x00" not in text and json.loads(text) == sent and "退货" in text


def test_secrets_are_hidden_at_any_depth_and_arguments_that_are_no_object_are_kept_as_text():
    kept = redact({"order": {"auth_token": "abc", "lines": [{"client_secret": "xyz", "qty": 2}]}, "state": "s"})
    assert kept == {
        "order": {"auth_token": "[redacted]", "lines": [{"client_secret": "[redacted]", "qty": 2}]},
        "state": "[redacted]",
    }
    assert redact(["a", "b"]) == {"_unparsed": "['a', 'b']"}


def test_a_customers_email_and_phone_are_hidden_at_any_depth_and_the_lookups_other_keys_kept():
    kept = redact(
        {
            "email": "Kai.Lin.301@example.com",
            "Phone": "+86 132 2682 7301",
            "customer": {"contact_email": "a@b.cn", "mobile_phone": ["138 1234 5678"]},
            "customer_id": "C-00301",
            "cursor": "eyJ2IjoxfQ",
            "limit": 10,
        }
    )
    assert kept == {
        "email": "[redacted]",
        "Phone": "[redacted]",
        "customer": {"contact_email": "[redacted]", "mobile_phone": "[redacted]"},
        "customer_id": "C-00301",
        "cursor": "eyJ2IjoxfQ",
        "limit": 10,
    }


def test_a_number_too_long_to_print_is_kept_as_its_size():
    assert json.loads(arguments_json({"line_no": 10**5000, "quantity": 2})) == {
        "line_no": "[an integer of 16610 bits]",
        "quantity": 2,
    }


def test_a_field_named_like_a_secret_is_hidden_whatever_its_case_or_what_it_holds():
    kept = redact(
        {
            "Authorization": "Bearer abc",
            "requestState": {"sealed": "xyz"},
            "api_TOKEN": ["abc", "def"],
            "PASSWORD": 1234,
            "ticket_id": "T-2026-0357",
        }
    )
    assert kept == {
        "Authorization": "[redacted]",
        "requestState": "[redacted]",
        "api_TOKEN": "[redacted]",
        "PASSWORD": "[redacted]",
        "ticket_id": "T-2026-0357",
    }


def test_text_is_kept_up_to_120_characters_and_longer_text_ends_in_an_ellipsis_names_too():
    kept = redact({"short": "s" * 120, "long": "l" * 121, "n" * 200: 1})
    assert kept["short"] == "s" * 120
    assert kept["long"] == "l" * 119 + "…"
    assert "n" * 119 + "…" in kept


def test_lists_and_objects_keep_their_first_fifty_items():
    kept = redact({"lines": list(range(60)), "notes": {f"note{n:02d}": n for n in range(60)}})
    assert kept["lines"] == list(range(50))
    assert list(kept["notes"]) == [f"note{n:02d}" for n in range(50)]
    assert len(redact({f"field{n}": n for n in range(60)})) == 50


def test_containers_nested_four_deep_are_replaced_by_a_marker():
    kept = redact({"a": {"b": {"c": {"d": "kept", "e": {"f": 1}, "g": [1]}}}, "list": [[[[1]]]]})
    assert kept["a"]["b"]["c"] == {"d": "kept", "e": "[nested]", "g": "[nested]"}
    assert kept["list"] == [[["[nested]"]]]


def test_values_json_has_are_kept_as_they_are_and_anything_else_as_its_text():
    moment = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    kept = redact({"none": None, "flag": True, "count": 3, "share": 0.5, "at": moment, "set": {1}})
    assert kept == {"none": None, "flag": True, "count": 3, "share": 0.5, "at": str(moment), "set": "{1}"}


def test_arguments_too_long_to_keep_are_stored_as_one_cut_text_with_the_secrets_still_hidden():
    huge = {"auth_token": "s3cret"} | {f"field{n:02d}": "x" * 100 for n in range(50)}  # keys are kept sorted
    text = arguments_json(huge)
    assert set(json.loads(text)) == {"_cut"} and len(json.loads(text)["_cut"]) == ARGUMENTS_LIMIT
    assert "s3cret" not in text and "[redacted]" in text


def test_column_text_no_database_can_store_is_replaced():
    row = row_of(call_record(caller="bot\x00\ud800", error_kind="kind\udfff"))
    assert (row["caller"], row["error_kind"]) == ("bot\ufffd\ufffd", "kind\ufffd")

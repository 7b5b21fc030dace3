"""Audit rows fit for both databases: secrets hidden, text cut to the model's widths, JSON that always encodes."""

import json

from aftersales.services.audit import arguments_json, redact, row_of
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


def test_a_number_too_long_to_print_is_kept_as_its_size():
    assert json.loads(arguments_json({"line_no": 10**5000, "quantity": 2})) == {
        "line_no": "[an integer of 16610 bits]",
        "quantity": 2,
    }

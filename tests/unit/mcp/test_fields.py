"""The shared input field types refuse exactly what the schema they publish refuses."""

import pytest
from pydantic import TypeAdapter, ValidationError

from aftersales.mcp.fields import LineNo, OptionalQuoteId, OptionalRefundMethod, Quantity


@pytest.mark.parametrize("field", [LineNo, Quantity])
def test_integer_fields_take_json_integers_and_refuse_booleans_and_numeric_text(field):
    adapter = TypeAdapter(field)
    assert adapter.validate_python(3) == 3 and adapter.validate_python(3.0) == 3
    for refused in (True, False, "3", 3.5, 0, 1000):
        with pytest.raises(ValidationError):
            adapter.validate_python(refused)
    assert adapter.json_schema()["minimum"] == 1 and adapter.json_schema()["maximum"] == 999


def test_an_optional_quote_id_enforces_the_pattern_it_publishes():
    adapter = TypeAdapter(OptionalQuoteId)
    pattern = adapter.json_schema()["anyOf"][0]["pattern"]
    assert adapter.validate_python(None) is None
    assert adapter.validate_python("6f1c2a9e-4b7d-4e0a-9c3f-2d5e8a1b7c40") == "6f1c2a9e-4b7d-4e0a-9c3f-2d5e8a1b7c40"
    with pytest.raises(ValidationError, match="should match pattern"):
        adapter.validate_python("not-a-uuid")
    assert pattern.startswith("^[0-9a-fA-F]{8}-")


def test_an_optional_enum_publishes_its_values_inline_without_a_reference():
    schema = TypeAdapter(OptionalRefundMethod).json_schema()
    assert schema["anyOf"] == [
        {"enum": ["original_payment", "store_credit", "bank_transfer"], "type": "string"},
        {"type": "null"},
    ]
    assert "$defs" not in schema

"""The argument gate: SDK-worded failures rewritten in three parts, schemas published closed, suspect calls checked."""

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ValidationError, field_validator

from aftersales.mcp.arguments import (
    closed_schemas,
    invalid_arguments_result,
    needs_schema_check,
    problems_in,
    rewrite_sdk_error,
)
from aftersales.mcp.forms import AnswerRefused
from tests.support.clients import leaks

FIELDS = {
    "order_id": {"type": "string", "pattern": r"^O-\d{4}-\d{6}$"},
    "description": {"type": "string", "minLength": 5, "maxLength": 500},
    "refund_method": {"anyOf": [{"type": "string", "enum": ["original_payment", "store_credit"]}, {"type": "null"}]},
}


def test_the_result_is_an_error_with_what_to_do_next_and_no_library_words():
    result = invalid_arguments_result("after_sales_query_ticket", ["ticket_id: missing; it is required."])
    text = result.content[0].text
    assert result.is_error
    assert "call after_sales_query_ticket again" in text
    assert leaks(text) == [] and "http" not in text.lower()


def test_sdk_worded_failures_are_rewritten_into_three_parts_without_internals():
    raw = {
        "isError": True,
        "content": [
            {
                "type": "text",
                "text": "Error executing tool t: Resolver 'pkg.mod:f' received an accepted elicitation whose content",
            }
        ],
    }
    text = rewrite_sdk_error("t", raw)["content"][0]["text"]
    assert "pkg.mod" not in text and "Call the tool again" in text
    assert rewrite_sdk_error("t", {"isError": False, "content": []}) == {"isError": False, "content": []}


def test_a_refused_form_answer_keeps_its_own_words_under_the_tools_name_instead_of_the_sdks_prefix():
    words = str(AnswerRefused(['confirm: received "yes" (a string); it must be a boolean.']))
    raw = {"isError": True, "content": [{"type": "text", "text": f"Error executing tool t: {words}"}]}
    rewritten = rewrite_sdk_error("t", raw)
    assert rewritten["content"][0]["text"] == f"t: {words}"
    assert rewritten["_meta"]["aftersales/error"] == "invalid_answer"


def test_calls_the_sdk_would_misread_or_could_not_store_are_checked_against_the_schema_first():
    assert not needs_schema_check(FIELDS, {"order_id": "O-2026-000123", "description": "the screen is [broken]"})
    assert needs_schema_check(FIELDS, {"description": "broken\x00"})
    assert needs_schema_check(FIELDS, {"description": "broken\udfff"})
    assert needs_schema_check(FIELDS, {"refund_method": "null"})  # the SDK would read it as an omitted field
    assert needs_schema_check(FIELDS, {"refund_method": " [1]"})
    assert needs_schema_check(FIELDS, {"extra": 1})
    assert needs_schema_check(FIELDS, ["not", "an", "object"])


class Strict(BaseModel):
    """A model with a rule no JSON Schema keyword states, as a tool's own validator might have."""

    code: str

    @field_validator("code")
    @classmethod
    def _no_zeros(cls, value: str) -> str:
        if "0" in value:
            raise ValueError("no zeros")
        return value


def test_a_refusal_the_schema_does_not_explain_still_names_the_field_the_sdk_refused():
    arguments = {"code": "A0"}
    with pytest.raises(ValidationError) as refused:
        Strict.model_validate(arguments)
    sdk_text = f"Error executing tool t: {refused.value}"  # how the SDK words a refused call
    raw = {"isError": True, "content": [{"type": "text", "text": sdk_text}]}
    validator = Draft202012Validator(Strict.model_json_schema())
    rewritten = rewrite_sdk_error("t", raw, lambda text: problems_in(validator, arguments, text))
    text = rewritten["content"][0]["text"]
    assert rewritten["_meta"]["aftersales/error"] == "invalid_arguments"
    assert 'code: received "A0", which this tool does not accept' in text
    assert "pydantic" not in text and "http" not in text


def test_tools_list_publishes_each_input_schema_closed_to_other_fields():
    listed = {"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {}}}], "nextCursor": "c"}
    closed = closed_schemas(listed)
    assert closed["tools"][0]["inputSchema"] == {"type": "object", "properties": {}, "additionalProperties": False}
    assert closed["nextCursor"] == "c" and "additionalProperties" not in listed["tools"][0]["inputSchema"]

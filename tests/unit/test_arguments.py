"""Argument errors: one readable sentence per problem, never a validation-library dump."""

from jsonschema import Draft202012Validator

from aftersales.mcp.arguments import describe_problems, invalid_arguments_result

SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["order_id", "description"],
    "properties": {
        "order_id": {"type": "string", "pattern": r"^O-\d{4}-\d{6}$", "examples": ["O-2026-000123"]},
        "line_no": {"type": "integer", "minimum": 1, "examples": [1]},
        "kind": {"type": "string", "enum": ["refund_only", "repair"]},
        "description": {"type": "string", "minLength": 5, "maxLength": 500},
        "refund_method": {
            "anyOf": [{"type": "string", "enum": ["original_payment", "store_credit"]}, {"type": "null"}]
        },
    },
}
VALIDATOR = Draft202012Validator(SCHEMA)


def test_a_pattern_violation_quotes_the_value_the_pattern_and_an_example():
    [problem] = describe_problems(VALIDATOR, {"order_id": "O-26-1", "description": "broken screen"})
    assert problem == (
        'order_id: received "O-26-1", which does not match the pattern ^O-\\d{4}-\\d{6}$, for example "O-2026-000123".'
    )


def test_every_kind_of_violation_is_listed_in_one_answer():
    problems = describe_problems(
        VALIDATOR,
        {
            "order_id": 12,
            "line_no": 0,
            "kind": "refund",
            "description": "bad",
            "refund_method": "cash",
            "extra": 1,
        },
    )
    text = " ".join(problems)
    assert len(problems) == 6
    assert "order_id: received 12 (a number); it must be a string" in text
    assert "line_no: received 0; it must be at least 1" in text
    assert 'kind: received "refund"; the allowed values are refund_only, repair' in text
    assert "description: received a text of 3 characters; it must be between 5 and 500 characters long" in text
    assert 'refund_method: received "cash"; the allowed values are original_payment, store_credit' in text
    assert "extra: not an input of this tool" in text


def test_a_missing_required_field_is_named():
    assert describe_problems(VALIDATOR, {"order_id": "O-2026-000123"}) == ["description: missing; it is required."]


def test_the_result_is_an_error_with_what_to_do_next_and_no_library_words():
    result = invalid_arguments_result("after_sales_query_ticket", ["ticket_id: missing; it is required."])
    text = result.content[0].text
    assert result.is_error
    assert "call after_sales_query_ticket again" in text
    for leak in ("pydantic", "validation error", "Traceback", "http"):
        assert leak not in text.lower()


def test_a_trailing_newline_does_not_slip_past_an_anchored_pattern():
    from aftersales.mcp.arguments import AnchoredValidator

    problems = describe_problems(AnchoredValidator(SCHEMA), {"order_id": "O-2026-000123\n", "description": "hello"})
    assert problems and problems[0].startswith('order_id: received "O-2026-000123\\n"')


def test_sdk_worded_failures_are_rewritten_into_three_parts_without_internals():
    from aftersales.mcp.arguments import rewrite_sdk_error

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

"""Argument problems in words: one sentence per problem naming the field, the value received and the rule."""

from jsonschema import Draft202012Validator

from aftersales.mcp.arguments import invalid_arguments_result
from aftersales.mcp.problems import AnchoredValidator, describe_problems

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


def test_a_trailing_newline_does_not_slip_past_an_anchored_pattern():
    problems = describe_problems(AnchoredValidator(SCHEMA), {"order_id": "O-2026-000123\n", "description": "hello"})
    assert problems and problems[0].startswith('order_id: received "O-2026-000123\\n"')


def test_a_nul_in_free_text_is_named_with_where_it_is_and_why_it_cannot_be_stored():
    [problem] = describe_problems(VALIDATOR, {"order_id": "O-2026-000123", "description": "broken\x00 screen"})
    assert problem == (
        'description: received "broken\\u0000 screen", which holds a NUL character (U+0000) at character 7; text '
        "may not contain NUL characters or unpaired surrogates (U+D800 to U+DFFF), which cannot be stored."
    )


def test_a_lone_surrogate_is_named_and_shown_escaped_so_the_answer_can_be_sent_as_json():
    arguments = {"order_id": "O-2026-000123", "description": "broken screen\ud800", "note\udc00": 1}
    result = invalid_arguments_result("t", describe_problems(VALIDATOR, arguments))
    text = result.content[0].text
    assert 'description: received "broken screen\\ud800", which holds an unpaired surrogate (U+D800)' in text
    assert "note\\udc00: not an input of this tool" in text
    assert "\\ud800" in result.model_dump_json()  # would raise on an unescaped lone surrogate


def test_unstorable_text_is_found_inside_lists_and_objects_too():
    [problem] = describe_problems(Draft202012Validator({"type": "object"}), {"items": [{"note": "a\x00b"}]})
    assert problem.startswith('items.0.note: received "a\\u0000b", which holds a NUL character')


def test_arguments_that_are_not_an_object_are_named_as_such():
    assert describe_problems(VALIDATOR, ["O-2026-000123"]) == [
        'arguments: received ["O-2026-000123"]; the arguments must be a JSON object of named fields.'
    ]

"""A tool's published inputSchema read generically: a valid call from its examples, and values that break each rule.

Nothing here knows the tools by name, so a tool added later is covered by every test that uses it.
"""

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from mcp.shared.inbound import X_MCP_HEADER_KEY

MISSING: Any = object()
UNSTORABLE = ("\x00", "\ud800", "\udfff")
EXTRA_FIELD = "unexpected_field"

# The words an answer uses for each rule, so a test checks that the rule is named as well as the field.
RULE_WORDS = {
    "pattern": "does not match the pattern",
    "enum": "the allowed values are",
    "minimum": "it must be at least",
    "maximum": "it must be at most",
    "exclusiveMinimum": "it must be more than",
    "exclusiveMaximum": "it must be less than",
    "minLength": "characters long",
    "maxLength": "characters long",
    "type": "it must be a",
    "required": "it is required",
    "additionalProperties": "not an input of this tool",
    "storable": "cannot be stored",
}


@dataclass(frozen=True)
class Violation:
    """One field sent in a way its schema refuses: `value`, or left out when it is MISSING."""

    field: str
    rule: str
    value: Any

    def apply(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """`arguments` with this violation in place."""
        changed = {name: value for name, value in arguments.items() if name != self.field}
        return changed if self.value is MISSING else {**changed, self.field: self.value}


def example_arguments(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Every field set to its first published example."""
    return {name: field["examples"][0] for name, field in schema["properties"].items()}


def accepts(schema: Mapping[str, Any], value: Any) -> bool:
    """Whether `value` is valid under `schema`, read by the JSON Schema standard (not by the server's code)."""
    return Draft202012Validator(dict(schema)).is_valid(value)


def has_unstorable_text(value: Any) -> bool:
    """Whether any text in `value` (keys too) holds a NUL or an unpaired surrogate."""
    if isinstance(value, str):
        return any(char == "\x00" or "\ud800" <= char <= "\udfff" for char in value)
    if isinstance(value, Mapping):
        return any(has_unstorable_text(key) or has_unstorable_text(item) for key, item in value.items())
    return isinstance(value, list) and any(has_unstorable_text(item) for item in value)


def rules_of(field: Mapping[str, Any]) -> dict[str, Any]:
    """The keywords a field states for its non-null values (an optional field is anyOf[rule, null])."""
    merged = {key: value for key, value in field.items() if key != "anyOf"}
    for branch in field.get("anyOf", []):
        if branch.get("type") != "null":
            merged.update(branch)
    return merged


def violations(schema: Mapping[str, Any]) -> list[Violation]:
    """A violation of every rule the schema states, each checked against the standard reading of the schema."""
    found: list[Violation] = []
    for name, field in schema["properties"].items():
        example = field["examples"][0]
        for rule, value in _candidates(rules_of(field), example):
            if not accepts(field, value):
                found.append(Violation(name, rule, value))
        if rules_of(field).get("type") == "string":
            middle = len(example) // 2
            # A client mirrors a header field's value into Mcp-Param-*, as UTF-8: the SDK's client cannot send an
            # unpaired surrogate there at all (it fails before anything goes out), so only the NUL is sent.
            chars = [c for c in UNSTORABLE if c == "\x00"] if X_MCP_HEADER_KEY in field else UNSTORABLE
            found += [Violation(name, "storable", example[:middle] + char + example[middle:]) for char in chars]
    found += [Violation(name, "required", MISSING) for name in schema.get("required", [])]
    if schema.get("additionalProperties") is False and EXTRA_FIELD not in schema["properties"]:
        found.append(Violation(EXTRA_FIELD, "additionalProperties", "x"))
    return found


def _candidates(rules: Mapping[str, Any], example: Any) -> Iterator[tuple[str, Any]]:
    """(rule, value) pairs meant to break one stated rule each; the caller keeps those the schema refuses."""
    if "pattern" in rules:
        text = str(example)
        yield from (("pattern", value) for value in ("null", "", f"{text}!", f"!{text}", f" {text}"))
    if "enum" in rules:
        yield from (("enum", value) for value in ("null", "", str(example).upper(), f"{example}_"))
    bounds = {"minimum": -1, "maximum": 1, "exclusiveMinimum": 0, "exclusiveMaximum": 0}
    yield from ((rule, rules[rule] + step) for rule, step in bounds.items() if rule in rules)
    if rules.get("minLength", 0) > 0:
        yield "minLength", "x" * (rules["minLength"] - 1)
    if "maxLength" in rules:
        yield "maxLength", "x" * (rules["maxLength"] + 1)
    wrong: dict[str, list[object]] = {
        "string": [12, True],
        "integer": [True, "1", 1.5],
        "number": [True, "1"],
        "boolean": [1, "true"],
    }
    kind = rules.get("type")
    yield from (("type", value) for value in [*(wrong.get(kind, []) if isinstance(kind, str) else []), None, [], {}])

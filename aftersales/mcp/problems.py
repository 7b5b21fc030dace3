"""Argument problems in words: one sentence per problem, naming the field, the value received and the rule.

Two sources feed it: the tool's inputSchema (read the way pydantic reads patterns) and the one rule no schema
keyword states, that text must be storable (no NUL, no unpaired surrogate: PostgreSQL refuses both).
"""

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError

# NUL and unpaired surrogates: what PostgreSQL's text columns (and UTF-8 itself) cannot hold.
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_INVISIBLE = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")
_BOUNDS = {
    "minimum": "at least",
    "maximum": "at most",
    "exclusiveMinimum": "more than",
    "exclusiveMaximum": "less than",
}


def _anchored_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """`pattern` as pydantic applies it: a trailing `$` means the end of the text, not before a final newline."""
    if not isinstance(instance, str):
        return
    found = re.search(pattern, instance)
    if found is None or (pattern.endswith("$") and found.end() != len(instance)):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


# The validator the schema implies, with pydantic's reading of patterns so the two can never disagree.
AnchoredValidator = validators.extend(Draft202012Validator, {"pattern": _anchored_pattern})


def describe_problems(validator: Any, arguments: Any, outside: str = "an input of this tool") -> list[str]:
    """One sentence per problem, in field order, each naming the field, the value and the rule.

    `outside` says what a field the schema does not list is not (a form's answer is not a tool's arguments).
    """
    if not isinstance(arguments, Mapping):
        return [f"arguments: received {show(arguments)}; the arguments must be a JSON object of named fields."]
    found = [(field, "", _unstorable_sentence(field, text, at)) for field, text, at in unstorable_texts(arguments)]
    errors = [inner for error in validator.iter_errors(dict(arguments)) for inner in _unwrapped(error)]
    found += [(_field(error), str(error.validator), _sentence(error, validator.schema, outside)) for error in errors]
    return list(dict.fromkeys(sentence for *_, sentence in sorted(found)))


def _unwrapped(error: ValidationError) -> list[ValidationError]:
    """Optional fields are anyOf[rule, null]: what broke the rule, rather than the anyOf itself."""
    if error.validator != "anyOf":
        return [error]
    inner = [e for e in error.context or [] if not (e.validator == "type" and e.validator_value == "null")]
    return inner or [error]


def unstorable_texts(value: Any, path: str = "") -> Iterator[tuple[str, str, int]]:
    """(field, text, index) for each text in `value` that holds a NUL or an unpaired surrogate."""
    if isinstance(value, str):
        if found := UNSTORABLE.search(value):
            yield path or "arguments", value, found.start()
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from unstorable_texts(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from unstorable_texts(item, f"{path}.{index}" if path else str(index))


def _unstorable_sentence(field: str, text: str, index: int) -> str:
    """The text rule, with where the first offending character is (the quoted value may be cut short)."""
    code = ord(text[index])
    what = "a NUL character (U+0000)" if code == 0 else f"an unpaired surrogate (U+{code:04X})"
    return (
        f"{visible(field)}: received {show(text)}, which holds {what} at character {index + 1}; text may not "
        "contain NUL characters or unpaired surrogates (U+D800 to U+DFFF), which cannot be stored."
    )


def _field(error: ValidationError) -> str:
    """The dotted name of the field an error is about."""
    path = ".".join(str(part) for part in error.absolute_path)
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else ""
        return f"{path}.{missing}" if path else missing
    if error.validator == "additionalProperties":
        return path or _extras(error)[0]
    return path or "arguments"


def _keywords(error: ValidationError) -> Mapping[str, Any]:
    """The schema object whose keyword an error broke (a boolean schema has no keywords)."""
    return error.schema if isinstance(error.schema, Mapping) else {}


def _extras(error: ValidationError) -> list[str]:
    """Field names an additionalProperties error is about."""
    allowed = set(_keywords(error).get("properties", {}))
    return sorted(set(error.instance) - allowed) or ["arguments"]


def _sentence(error: ValidationError, root: Mapping[str, Any], outside: str) -> str:
    """Describe one violation: the field, the value received, and the rule."""
    field, value, rule = _field(error), error.instance, error.validator_value
    example, name = _example(root, field), visible(field)
    if error.validator == "required":
        return f"{name}: missing; it is required{example}."
    if error.validator == "additionalProperties":
        names = ", ".join(visible(extra) for extra in _extras(error))
        return f"{names}: not {outside}; the accepted fields are {', '.join(_keywords(error)['properties'])}."
    if error.validator == "oneOf" and (choices := _choices(rule)):
        return f"{name}: received {show(value)}; the allowed values are {', '.join(choices)}."
    if error.validator == "pattern":
        return f"{name}: received {show(value)}, which does not match the pattern {rule}{example}."
    if error.validator == "enum":
        return f"{name}: received {show(value)}; the allowed values are {', '.join(map(str, rule))}."
    if error.validator == "const":
        return f"{name}: received {show(value)}; the only allowed value is {show(rule)}."
    if error.validator in _BOUNDS:
        return f"{name}: received {show(value)}; it must be {_BOUNDS[str(error.validator)]} {rule}{example}."
    if error.validator in ("minLength", "maxLength"):
        low, high = _keywords(error).get("minLength", 0), _keywords(error).get("maxLength")
        span = f"between {low} and {high}" if high is not None else f"at least {low}"
        return f"{name}: received a text of {len(value)} characters; it must be {span} characters long."
    if error.validator == "type":
        return f"{name}: received {show(value)} ({_json_type(value)}); it must be {_article(rule)}{example}."
    return f"{name}: received {show(value)}, which breaks the rule '{error.validator}: {show(rule)}'."


def _choices(branches: Any) -> list[str]:
    """The values a oneOf of titled constants offers (how a form lists its choices), or none for any other oneOf."""
    if not isinstance(branches, list) or not all(isinstance(b, Mapping) and "const" in b for b in branches):
        return []
    return [str(branch["const"]) for branch in branches]


def _example(root: Mapping[str, Any], field: str) -> str:
    """ ", for example X" from the field's schema, or nothing."""
    schema = root.get("properties", {}).get(field, {})
    examples = schema.get("examples")
    return f", for example {show(examples[0])}" if examples else ""


def show(value: Any) -> str:
    """A value as JSON, cut short when long, with unpaired surrogates escaped so the answer can be sent."""
    text = visible(json.dumps(value, ensure_ascii=False))
    return text if len(text) <= 80 else text[:77] + "..."


def visible(text: str) -> str:
    """`text` with control characters and unpaired surrogates written as \\uXXXX escapes."""
    return _INVISIBLE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def _json_type(value: Any) -> str:
    """The JSON type name of a Python value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def _article(rule: Any) -> str:
    """'an integer', 'a string', ... for a JSON Schema type (or list of types)."""
    names = rule if isinstance(rule, list) else [rule]
    return " or ".join(("an " if name[0] in "aeiou" else "a ") + name for name in names)

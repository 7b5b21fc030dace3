"""One mechanism for argument errors: check every tools/call against the tool's inputSchema.

The SDK would answer with a validation-library dump; this middleware answers first, with one
three-part message that lists every problem in the call. Unknown tools are a protocol error.
"""

import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, TextContent

from aftersales.mcp.errors import internal_error


class ArgumentGate:
    """Server middleware: unknown tool -> JSON-RPC -32602; bad arguments -> one isError result."""

    def __init__(self, server: MCPServer) -> None:
        self._server = server
        self._validators: dict[str, Any] | None = None

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Check tools/call requests; pass everything else through."""
        if ctx.method != "tools/call" or not isinstance(ctx.params, Mapping):
            return await call_next(ctx)
        name, arguments = ctx.params.get("name"), ctx.params.get("arguments") or {}
        compiled = await self._load()
        validator = compiled.get(name) if isinstance(name, str) else None
        if validator is None:
            known = ", ".join(sorted(compiled))
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {name!r}. The tools of this server are: {known}.")
        fields = validator.schema.get("properties", {})
        if not isinstance(arguments, Mapping) or any(key not in fields for key in arguments):
            return invalid_arguments_result(name, describe_problems(validator, arguments))
        # The SDK validates the arguments itself; the full description is only worth building when it refuses them.
        return rewrite_sdk_error(name, await call_next(ctx), lambda: describe_problems(validator, arguments))

    async def _load(self) -> dict[str, Any]:
        """Compile each tool's inputSchema once, closed to unknown fields."""
        if self._validators is None:
            tools = await self._server.list_tools()
            self._validators = {
                tool.name: AnchoredValidator({**tool.input_schema, "additionalProperties": False}) for tool in tools
            }
        return self._validators


def _anchored_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """`pattern` as pydantic applies it: a trailing `$` means the end of the text, not before a final newline."""
    if not isinstance(instance, str):
        return
    found = re.search(pattern, instance)
    if found is None or (pattern.endswith("$") and found.end() != len(instance)):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


# The validator the schema implies, with pydantic's reading of patterns so the two can never disagree.
AnchoredValidator = validators.extend(Draft202012Validator, {"pattern": _anchored_pattern})

# Failures the SDK words itself (a resolver refusing a form answer, say) name internals; these replace them.
SDK_FAILURES = (
    (
        "invalid_answer",
        "elicitation",
        "The person's answer in the form was empty or not one of the offered choices.",
        "The form accepts only the options it lists.",
        "Call the tool again with the same arguments so the person is asked again, or pass the value yourself "
        "after asking the customer.",
    ),
    (
        "invalid_arguments",
        "validation error",
        "One of the arguments was not accepted.",
        "Each field must match its pattern, enum and bounds in the tool's input schema.",
        "Check the fields against the schema and call again.",
    ),
)


def rewrite_sdk_error(tool: str, result: HandlerResult, describe: Callable[[], list[str]] = list) -> HandlerResult:
    """Replace an SDK-worded isError text (it names internals) with a three-part message.

    A failure the SDK reports that is none of the known kinds is a server fault, so it becomes a -32603 rather
    than a tool result.
    """
    if not isinstance(result, dict) or not result.get("isError"):
        return result
    content = result.get("content") or []
    text = content[0].get("text", "") if content and isinstance(content[0], dict) else ""
    if not text.startswith("Error executing tool "):
        return result
    if "validation error" in text.lower() and (problems := describe()):
        return invalid_arguments_result(tool, problems).model_dump(by_alias=True, exclude_none=True)
    for kind, marker, *parts in SDK_FAILURES:
        if marker in text.lower():
            meta = {**(result.get("_meta") or {}), "aftersales/error": kind}
            return {**result, "content": [{"type": "text", "text": f"{tool}: " + " ".join(parts)}], "_meta": meta}
    raise internal_error(RuntimeError(text))


def describe_problems(validator: Any, arguments: Any) -> list[str]:
    """One sentence per problem, in field order, each naming the field, the value and the rule."""
    if not isinstance(arguments, Mapping):
        return [f"arguments: received {_show(arguments)}; the arguments must be a JSON object of named fields."]
    errors = sorted(validator.iter_errors(dict(arguments)), key=lambda e: (_field(e), e.validator))
    return [_sentence(error, validator.schema) for error in errors]


def invalid_arguments_result(tool: str, problems: list[str]) -> CallToolResult:
    """The isError result for a call whose arguments break the schema."""
    listed = " ".join(f"({n}) {problem}" for n, problem in enumerate(problems, start=1))
    text = (
        f"{tool} was called with {len(problems)} invalid argument{'s' if len(problems) > 1 else ''}: {listed} "
        f"Nothing was changed. Correct the listed fields and call {tool} again; where a value came from the "
        "customer (an order or ticket number, say), ask them to read it again from their confirmation message."
    )
    return CallToolResult(
        content=[TextContent(type="text", text=text)], is_error=True, _meta={"aftersales/error": "invalid_arguments"}
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


def _extras(error: ValidationError) -> list[str]:
    """Field names an additionalProperties error is about."""
    allowed = set(error.schema.get("properties", {}))
    return sorted(set(error.instance) - allowed) or ["arguments"]


def _sentence(error: ValidationError, root: Mapping[str, Any]) -> str:
    """Describe one violation: the field, the value received, and the rule."""
    if error.validator == "anyOf":
        # Optional fields are anyOf[rule, null]; report the rule that is not "null".
        inner = [e for e in error.context or [] if not (e.validator == "type" and e.validator_value == "null")]
        if inner:
            error = min(inner, key=lambda e: len(e.absolute_path))
    field, value, rule = _field(error), error.instance, error.validator_value
    example = _example(root, field)
    if error.validator == "required":
        return f"{field}: missing; it is required{example}."
    if error.validator == "additionalProperties":
        names = ", ".join(_extras(error))
        return f"{names}: not an input of this tool; the accepted fields are {', '.join(error.schema['properties'])}."
    if error.validator == "pattern":
        return f"{field}: received {_show(value)}, which does not match the pattern {rule}{example}."
    if error.validator == "enum":
        return f"{field}: received {_show(value)}; the allowed values are {', '.join(map(str, rule))}."
    if error.validator == "const":
        return f"{field}: received {_show(value)}; the only allowed value is {_show(rule)}."
    if error.validator in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        words = {
            "minimum": "at least",
            "maximum": "at most",
            "exclusiveMinimum": "more than",
            "exclusiveMaximum": "less than",
        }[error.validator]
        return f"{field}: received {_show(value)}; it must be {words} {rule}{example}."
    if error.validator in ("minLength", "maxLength"):
        bounds = error.schema
        low, high = bounds.get("minLength", 0), bounds.get("maxLength")
        span = f"between {low} and {high}" if high is not None else f"at least {low}"
        return f"{field}: received a text of {len(value)} characters; it must be {span} characters long."
    if error.validator == "type":
        return f"{field}: received {_show(value)} ({_json_type(value)}); it must be {_article(rule)}{example}."
    return f"{field}: received {_show(value)}, which breaks the rule '{error.validator}: {_show(rule)}'."


def _example(root: Mapping[str, Any], field: str) -> str:
    """ ", for example X" from the field's schema, or nothing."""
    schema = root.get("properties", {}).get(field, {})
    examples = schema.get("examples")
    return f", for example {_show(examples[0])}" if examples else ""


def _show(value: Any) -> str:
    """A value as JSON, cut short when long."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


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

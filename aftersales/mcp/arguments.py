"""One mechanism for argument errors: check every tools/call against the tool's inputSchema.

The SDK would answer with a validation-library dump; this middleware answers first, with one
three-part message that lists every problem in the call. Unknown tools are a protocol error.
The inputSchema each tool publishes is closed (`additionalProperties: false`), as this gate enforces.
"""

import json
from collections.abc import Callable, Mapping
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, TextContent

from aftersales.mcp.error_mapping import internal_error
from aftersales.mcp.forms import AnswerRefused
from aftersales.mcp.problems import UNSTORABLE, AnchoredValidator, describe_problems, show, visible
from aftersales.mcp.requests import tool_call


class ArgumentGate:
    """Server middleware: unknown tool -> JSON-RPC -32602; bad arguments -> one isError result."""

    def __init__(self, server: MCPServer) -> None:
        self._server = server
        self._validators: dict[str, Any] | None = None

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Check tools/call requests; publish closed schemas in tools/list; pass everything else through."""
        if ctx.method == "tools/list":
            return closed_schemas(await call_next(ctx))
        params = tool_call(ctx)
        if params is None:
            return await call_next(ctx)
        name, arguments = params.get("name"), params.get("arguments")
        arguments = {} if arguments is None else arguments  # absent means none; [] or "" is not an object
        compiled = await self._load()
        if not isinstance(name, str) or (validator := compiled.get(name)) is None:
            known = ", ".join(sorted(compiled))
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {name!r}. The tools of this server are: {known}.")
        fields = validator.schema.get("properties", {})
        if needs_schema_check(fields, arguments) and (problems := describe_problems(validator, arguments)):
            return invalid_arguments_result(name, problems)
        # The SDK validates the arguments itself; the full description is only worth building when it refuses them.
        return rewrite_sdk_error(name, await call_next(ctx), lambda text: problems_in(validator, arguments, text))

    async def _load(self) -> dict[str, Any]:
        """Compile each tool's inputSchema once, closed to unknown fields."""
        if self._validators is None:
            tools = await self._server.list_tools()
            self._validators = {
                tool.name: AnchoredValidator({**tool.input_schema, "additionalProperties": False}) for tool in tools
            }
        return self._validators


def needs_schema_check(fields: Mapping[str, Any], arguments: Any) -> bool:
    """Whether the call must be judged against the schema before the SDK sees it.

    The SDK's own validation covers the rest cheaply, but it cannot see an unknown field, it does not refuse text
    PostgreSQL cannot store, and it reads text that looks like JSON as JSON for fields not typed as text, so that
    "null" would pass as an omitted quote_id.
    """
    if not isinstance(arguments, Mapping):
        return True
    return any(key not in fields or _suspect(value) for key, value in arguments.items())


def _suspect(value: Any) -> bool:
    """Whether a value holds unstorable text anywhere, or is text the SDK would read as JSON of another kind."""
    if isinstance(value, str):
        return UNSTORABLE.search(value) is not None or _read_as_json(value)
    if isinstance(value, Mapping):
        return any(_suspect(key) or _suspect(item) for key, item in value.items())
    return isinstance(value, list) and any(_suspect(item) for item in value)


def _read_as_json(text: str) -> bool:
    """Whether the SDK would replace this text with what it parses to (it keeps texts and numbers as they are)."""
    if text.lstrip()[:1] not in ("n", "[", "{"):
        return False
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return not isinstance(parsed, str | int | float)


def closed_schemas(result: HandlerResult) -> HandlerResult:
    """A tools/list result (already in wire form) whose every inputSchema says `additionalProperties: false`."""
    if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
        return result
    tools = [
        {**tool, "inputSchema": {**tool["inputSchema"], "additionalProperties": False}}
        if isinstance(tool, dict) and isinstance(tool.get("inputSchema"), dict)
        else tool
        for tool in result["tools"]
    ]
    return {**result, "tools": tools}


# Failures the SDK words itself (a resolver refusing a form answer, say) name internals; these replace them.
SDK_FAILURES = (
    (
        "invalid_answer",
        "elicitation",
        "The person's answer to the form was empty or not an answer to the form that was asked.",
        "An accepted form must carry the fields the form asks for.",
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


def rewrite_sdk_error(
    tool: str, result: HandlerResult, describe: Callable[[str], list[str]] = lambda _text: []
) -> HandlerResult:
    """Replace an SDK-worded isError text (it names internals) with a three-part message.

    `describe` turns the SDK's text into problem sentences when it refused the arguments. A failure the SDK
    reports that is none of the known kinds is a server fault, so it becomes a -32603 rather than a tool result.
    """
    if not isinstance(result, dict) or not result.get("isError"):
        return result
    content = result.get("content") or []
    text = content[0].get("text", "") if content and isinstance(content[0], dict) else ""
    if not text.startswith("Error executing tool "):
        return result
    # A form answer refused by the forms' own check is already in three parts: only the SDK's prefix goes.
    refused = text.removeprefix(f"Error executing tool {tool}: ")
    if refused.startswith(AnswerRefused.LEAD):
        meta = {**(result.get("_meta") or {}), "aftersales/error": "invalid_answer"}
        return {**result, "content": [{"type": "text", "text": f"{tool}: {refused}"}], "_meta": meta}
    if "validation error" in text.lower() and (problems := describe(text)):
        return invalid_arguments_result(tool, problems).model_dump(by_alias=True, exclude_none=True)
    for kind, marker, *parts in SDK_FAILURES:
        if marker in text.lower():
            meta = {**(result.get("_meta") or {}), "aftersales/error": kind}
            return {**result, "content": [{"type": "text", "text": f"{tool}: " + " ".join(parts)}], "_meta": meta}
    raise internal_error(RuntimeError(text))


def problems_in(validator: Any, arguments: Any, sdk_text: str) -> list[str]:
    """The problems the schema finds, or else those the SDK's own report names, so a field is always named."""
    return describe_problems(validator, arguments) or problems_the_sdk_named(sdk_text, arguments)


def problems_the_sdk_named(text: str, arguments: Any) -> list[str]:
    """One sentence per field the SDK's validation refused, for a refusal the schema does not explain.

    Its report lists each refused field's location on a line of its own, the details indented below it.
    """
    lines = text.splitlines()[1:]
    fields = sorted({line.split(".")[0].strip() for line in lines if line.strip() and not line[0].isspace()})
    given = arguments if isinstance(arguments, Mapping) else {}
    return [
        f"{visible(field)}: received {show(given[field])}, which this tool does not accept; send a value of the type "
        "and form its input schema describes."
        if field in given
        else f"{visible(field)}: missing; it is required."
        for field in fields
    ]


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

"""Turn service outcomes into MCP results: domain errors become isError results, crashes -32603.

Storage has already translated database failures into domain errors (an unreachable database is
ServiceUnavailable), so everything a model can act on arrives here as an AfterSalesError. Resources and prompts have
no isError result: there a domain error is a JSON-RPC error carrying the same three-part message, -32602 for what the
caller can fix (a rate limit too: it waits) and -32603 when the server could not answer.
"""

import functools
import logging
import uuid
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, CallToolResult, TextContent

from aftersales.domain.errors import AfterSalesError

log = logging.getLogger("aftersales.tools")
P = ParamSpec("P")
R = TypeVar("R")


def error_result(error: AfterSalesError) -> CallToolResult:
    """The isError result carrying an error's three-part message, and its kind (and rule code) as structured content."""
    meta: dict[str, Any] = {"aftersales/error": error.kind}
    if error.retryable:
        meta["aftersales/retryAfterSeconds"] = getattr(error, "retry_after", 1.0)
    return CallToolResult(
        content=[TextContent(type="text", text=str(error))],
        structured_content=error_content(error),
        is_error=True,
        _meta=meta,
    )


def error_content(error: AfterSalesError) -> dict[str, str]:
    """A tool error's structured content: `error_kind`, and `error_code` when a business rule refused."""
    content = {"error_kind": error.kind}
    if error.code is not None:
        content["error_code"] = error.code.value
    return content


def protocol_error(error: AfterSalesError) -> MCPError:
    """A domain error as a JSON-RPC error: -32603 if the server could not answer, else -32602; `data` has any wait."""
    data: dict[str, Any] = {"aftersales/error": error.kind}
    if error.retryable:
        data["aftersales/retryAfterSeconds"] = getattr(error, "retry_after", 1.0)
    return MCPError(INTERNAL_ERROR if error.server_fault else INVALID_PARAMS, str(error), data=data)


def internal_error(exc: BaseException) -> MCPError:
    """A JSON-RPC -32603 that carries a correlation id; the traceback stays in the server log."""
    reference = uuid.uuid4().hex[:12]
    log.error("unexpected fault, reference %s", reference, exc_info=exc)
    return MCPError(INTERNAL_ERROR, f"Internal error (reference {reference}). The server log has the details.")


def crash_to_protocol_error(fn: Callable[P, R]) -> Callable[P, R]:
    """Wrap a sync tool or resolver: an unexpected exception becomes a -32603 with a reference id."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except (AfterSalesError, MCPError):
            raise
        except Exception as exc:
            raise internal_error(exc) from None

    return wrapper


def tool_errors(fn: Callable[P, R]) -> Callable[P, R | CallToolResult]:
    """Wrap a sync tool so domain errors are isError results and anything else is a protocol error."""
    guarded = crash_to_protocol_error(fn)

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R | CallToolResult:
        try:
            return guarded(*args, **kwargs)
        except AfterSalesError as error:
            return error_result(error)

    return wrapper


def resource_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Wrap a sync resource read: a domain error is -32602 with its three parts (a read has no isError result)."""
    guarded = crash_to_protocol_error(fn)

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return guarded(*args, **kwargs)
        except AfterSalesError as error:
            raise protocol_error(error) from None

    return wrapper

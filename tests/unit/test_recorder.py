"""Every tools/call's outcome, as the client received it, classified for the audit and the metrics."""

from types import SimpleNamespace
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    TextContent,
)

from aftersales.domain.callers import ALL_SCOPES, Caller
from aftersales.domain.errors import RuleViolation
from aftersales.mcp.caller import acting_as
from aftersales.mcp.errors import error_result
from aftersales.mcp.metrics import Metrics
from aftersales.mcp.recorder import CallRecorder, classify
from aftersales.services.audit import CallRecord

pytestmark = pytest.mark.anyio
ALICE = Caller("alice-bot", frozenset(ALL_SCOPES))
RULE = RuleViolation("Quantity 4 is more than the 3 units bought.", "The rule.", "What to do.")


def answer(outcome: str) -> CallToolResult:
    """A successful create_ticket result with this outcome."""
    ticket = {"outcome": outcome, "ticket": {"ticket_id": "T-2026-0401"}}
    return CallToolResult(content=[TextContent(type="text", text=str(ticket))], structured_content=ticket)


def test_a_result_the_tool_returned_is_ok_and_a_replayed_one_is_counted_as_a_replay():
    assert classify(answer("created")) == ("ok", None, False)
    assert classify(answer("replayed")) == ("ok", None, True)
    assert classify(answer("created").model_dump(by_alias=True)) == ("ok", None, False)  # as a dict, too
    assert classify(None) == ("ok", None, False)


def test_a_tool_error_carries_the_kind_the_tool_gave_it_and_tool_when_it_gave_none():
    assert classify(error_result(RULE)) == ("tool_error", "rule", False)
    bare = CallToolResult(content=[TextContent(type="text", text="no")], is_error=True)
    assert classify(bare) == ("tool_error", "tool", False)
    replayed_but_failed = bare.model_copy(update={"structured_content": {"outcome": "replayed"}})
    assert classify(replayed_but_failed) == ("tool_error", "tool", False)


def test_a_round_that_asks_the_person_is_input_required_not_ok():
    asked = InputRequiredResult(
        input_requests={"method": ElicitRequest(params=ElicitRequestFormParams(message="?", requested_schema={}))},
        request_state="sealed",
    )
    assert classify(asked) == ("input_required", None, False)
    assert classify({"inputRequests": {}}) == ("input_required", None, False)


class Kept:
    """Stands in for the audit log: keeps what it is handed."""

    def __init__(self, fails: bool = False) -> None:
        self.records: list[CallRecord] = []
        self.fails = fails

    def record(self, entry: CallRecord) -> None:
        if self.fails:
            raise RuntimeError("the audit is broken")
        self.records.append(entry)


def recorder(audit: Kept) -> CallRecorder:
    """A recorder for a server with one tool, `look`."""
    server = MCPServer("recorded")

    @server.tool()
    def look() -> str:
        return "seen"

    metrics = Metrics()
    metrics.bind(["look"], audit_dropped=lambda: 0)
    return CallRecorder(audit, metrics, server)  # Kept takes records as the AuditLog does


async def through(audit: Kept, tool: str, outcome: Any, **params: Any) -> Any:
    """Send one tools/call as alice through a recorder whose next step returns `outcome`, or raises it."""

    async def call_next(_ctx: Any) -> Any:
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    ctx: Any = SimpleNamespace(method="tools/call", params={"name": tool, "arguments": {"n": 1}, **params})
    with acting_as(ALICE):
        return await recorder(audit)(ctx, call_next)


def kept(audit: Kept) -> tuple[str, str, str, str | None, bool, int, bool]:
    """The one record kept, as (caller, tool, outcome, error kind, arguments valid, round, replayed)."""
    [entry] = audit.records
    return (
        entry.caller,
        entry.tool,
        entry.outcome,
        entry.error_kind,
        entry.arguments_valid,
        entry.input_round,
        entry.replayed,
    )


async def test_each_call_is_recorded_with_its_outcome_round_and_replay():
    audit = Kept()
    await through(audit, "look", answer("replayed"), inputResponses={"method": {}})
    assert kept(audit) == ("alice-bot", "look", "ok", None, True, 2, True)
    assert audit.records[0].arguments == {"n": 1} and audit.records[0].latency_ms >= 0


async def test_a_call_refused_for_its_arguments_is_recorded_as_invalid():
    audit = Kept()
    invalid = CallToolResult(content=[], is_error=True, _meta={"aftersales/error": "invalid_arguments"})
    await through(audit, "look", invalid)
    assert kept(audit) == ("alice-bot", "look", "tool_error", "invalid_arguments", False, 1, False)


async def test_a_protocol_error_is_recorded_by_its_code_and_still_reaches_the_client():
    audit = Kept()
    with pytest.raises(MCPError):
        await through(audit, "look", MCPError(INVALID_PARAMS, "Invalid or expired requestState"))
    assert kept(audit) == ("alice-bot", "look", "protocol_error", "jsonrpc_-32602", True, 1, False)


async def test_a_tool_this_server_does_not_have_is_recorded_as_unknown_whatever_its_name():
    audit = Kept()
    with pytest.raises(MCPError):
        await through(audit, 'after_sales_"x"\nname', MCPError(INVALID_PARAMS, "Unknown tool"))
    assert kept(audit) == ("alice-bot", "unknown", "protocol_error", "unknown_tool", False, 1, False)


async def test_a_crash_is_recorded_as_an_internal_protocol_error_and_still_raised():
    audit = Kept()
    with pytest.raises(RuntimeError, match="disk on fire"):
        await through(audit, "look", RuntimeError("disk on fire"))
    assert kept(audit) == ("alice-bot", "look", "protocol_error", "internal", True, 1, False)


async def test_a_failing_audit_never_changes_what_the_client_gets(caplog):
    result = answer("created")
    assert await through(Kept(fails=True), "look", result) is result
    assert "could not record a call of look" in caplog.text

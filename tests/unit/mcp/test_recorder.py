"""Every tools/call's outcome, as the client received it, classified for the audit and the metrics."""

from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from freezegun import freeze_time
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    TextContent,
)

from aftersales.domain.calls import QUERY_TICKET
from aftersales.domain.errors import RuleViolation
from aftersales.domain.rule_codes import RuleCode
from aftersales.mcp.caller import acting_as
from aftersales.mcp.error_mapping import error_result
from aftersales.mcp.recorder import CallRecorder, classify
from aftersales.metrics import Metrics
from aftersales.storage.audit import CallRecord
from aftersales.worlds import context
from tests.support.clients import ALICE
from tests.support.metrics import samples
from tests.support.worlds import a_world

pytestmark = pytest.mark.anyio
LOOK = QUERY_TICKET  # the recorder keeps names only of tools the server has
RULE = RuleViolation(
    RuleCode.QUANTITY_NOT_AVAILABLE, "Quantity 4 is more than the 3 units bought.", "The rule.", "What to do."
)


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


def test_a_result_is_classified_as_its_wire_form_is_without_dumping_its_content():
    asked = InputRequiredResult(
        input_requests={"method": ElicitRequest(params=ElicitRequestFormParams(message="?", requested_schema={}))},
        request_state="sealed",
    )
    bare = CallToolResult(content=[TextContent(type="text", text="no")], is_error=True)
    for result in (answer("created"), answer("replayed"), error_result(RULE), bare, asked):
        assert classify(result) == classify(result.model_dump(by_alias=True)), result


def test_classifying_a_result_never_dumps_it(monkeypatch):
    # The content, most of a ticket's result, was dumped on every call just to read a few fields.
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("classify dumped the whole result")

    monkeypatch.setattr(CallToolResult, "model_dump", refuse)
    assert classify(answer("replayed")) == ("ok", None, True)
    assert classify(error_result(RULE)) == ("tool_error", "rule", False)


def test_structured_content_that_is_not_an_object_is_ok_and_not_a_replay():
    listed = CallToolResult(content=[], structured_content=[{"outcome": "replayed"}])
    assert classify(listed) == ("ok", None, False)
    assert classify({"structuredContent": "replayed"}) == ("ok", None, False)


class Kept:
    """Stands in for the audit log: keeps what it is handed."""

    def __init__(self, fails: bool = False) -> None:
        self.records: list[CallRecord] = []
        self.fails = fails

    def record(self, entry: CallRecord) -> None:
        if self.fails:
            raise RuntimeError("the audit is broken")
        self.records.append(entry)


class Recorded:
    """A CallRecorder over one of the server's tools, after_sales_query_ticket; what it kept and what it counted."""

    def __init__(self, audit_fails: bool = False) -> None:
        self.audit, self.metrics = Kept(audit_fails), Metrics()
        self.metrics.bind([LOOK], audit_dropped=lambda: 0)
        self.recorder = CallRecorder(self.audit, self.metrics)  # Kept takes records as the AuditLog does

    async def send(self, tool: str, outcome: Any, method: str = "tools/call", **params: Any) -> Any:
        """Send one request as alice; the next step returns `outcome`, or raises it."""

        async def call_next(_ctx: Any) -> Any:
            if isinstance(outcome, Exception):
                raise outcome
            return outcome

        ctx: Any = SimpleNamespace(method=method, params={"name": tool, "arguments": {"n": 1}, **params})
        with acting_as(ALICE):
            return await self.recorder(ctx, call_next)

    def kept(self) -> tuple[str, str, str, str | None, bool, int, bool]:
        """The one record kept, as (caller, tool, outcome, error kind, arguments valid, round, replayed)."""
        [entry] = self.audit.records
        return (
            entry.caller,
            entry.tool,
            entry.outcome,
            entry.error_kind,
            entry.arguments_valid,
            entry.input_round,
            entry.replayed,
        )

    def repeats(self) -> float:
        """Calls of LOOK counted as repeats after a failure."""
        retries = samples(self.metrics, "aftersales_tool_retries_total")
        return retries[(("kind", "repeat_after_failure"), ("tool", LOOK))]


async def test_each_call_is_recorded_with_its_outcome_round_and_replay():
    recorded = Recorded()
    await recorded.send(LOOK, answer("replayed"), inputResponses={"method": {}})
    assert recorded.kept() == ("alice-bot", LOOK, "ok", None, True, 2, True)
    assert recorded.audit.records[0].arguments == {"n": 1} and recorded.audit.records[0].latency_ms >= 0


async def test_a_call_refused_for_its_arguments_is_recorded_as_invalid():
    recorded = Recorded()
    await recorded.send(
        LOOK, CallToolResult(content=[], is_error=True, _meta={"aftersales/error": "invalid_arguments"})
    )
    assert recorded.kept() == ("alice-bot", LOOK, "tool_error", "invalid_arguments", False, 1, False)


async def test_a_protocol_error_is_recorded_by_its_code_and_still_reaches_the_client():
    recorded = Recorded()
    with pytest.raises(MCPError):
        await recorded.send(LOOK, MCPError(INVALID_PARAMS, "Invalid or expired requestState"))
    assert recorded.kept() == ("alice-bot", LOOK, "protocol_error", "jsonrpc_-32602", True, 1, False)


async def test_a_tool_this_server_does_not_have_is_recorded_as_unknown_whatever_its_name():
    recorded = Recorded()
    with pytest.raises(MCPError):
        await recorded.send('after_sales_"x"\nname', MCPError(INVALID_PARAMS, "Unknown tool"))
    assert recorded.kept() == ("alice-bot", "unknown", "protocol_error", "unknown_tool", False, 1, False)


async def test_a_crash_is_recorded_as_an_internal_protocol_error_and_still_raised():
    recorded = Recorded()
    with pytest.raises(RuntimeError, match="disk on fire"):
        await recorded.send(LOOK, RuntimeError("disk on fire"))
    assert recorded.kept() == ("alice-bot", LOOK, "protocol_error", "internal", True, 1, False)


async def test_a_failing_audit_never_changes_what_the_client_gets(caplog):
    result = answer("created")
    assert await Recorded(audit_fails=True).send(LOOK, result) is result
    assert f"could not record a call of {LOOK}" in caplog.text


async def test_requests_other_than_tool_calls_pass_unrecorded():
    recorded, listed = Recorded(), {"tools": []}
    assert await recorded.send(LOOK, listed, method="tools/list") is listed
    assert recorded.audit.records == []


async def test_a_call_after_a_failure_of_the_same_tool_within_five_minutes_counts_as_a_repeat():
    recorded, failed = Recorded(), error_result(RULE)
    with freeze_time("2026-11-30 09:00:00", real_asyncio=True) as clock:
        await recorded.send(LOOK, failed)
        clock.tick(timedelta(minutes=5))
        await recorded.send(LOOK, answer("created"))  # a repeat: exactly five minutes on
        await recorded.send(LOOK, answer("created"))  # not one: the call before it did not fail
        await recorded.send(LOOK, failed)
        clock.tick(timedelta(minutes=5, seconds=1))
        await recorded.send(LOOK, failed)  # too late to be a repeat
    assert recorded.repeats() == 1


async def test_a_call_in_a_world_is_recorded_for_that_world_and_repeats_are_counted_per_world():
    recorded = Recorded()
    with context.entered(a_world("w-one"), lambda _: 1):
        await recorded.send(LOOK, error_result(RULE))
    with context.entered(a_world("w-two"), lambda _: 1):
        await recorded.send(LOOK, answer("created"))  # no failure before it in this world
    await recorded.send(LOOK, answer("created"))
    assert [entry.world for entry in recorded.audit.records] == ["w-one", "w-two", None]
    assert recorded.repeats() == 0

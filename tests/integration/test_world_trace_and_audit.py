"""What a world keeps of the calls made in it: its trace and its audit, in its own database, on both backends."""

from datetime import timedelta

from sqlalchemy import func, select

from aftersales.storage.audit import AuditLog, CallRecord
from aftersales.storage.models import ToolCall
from aftersales.worlds.world_errors import UnknownWorld
from tests.support.worlds import PINNED, traced_call

QUESTION = {"key": "after_sales_create_ticket:refund_method", "method": "elicitation/create", "message": "Where to?"}
ANSWER = {"key": "after_sales_create_ticket:refund_method", "action": "accept", "content": {"refund_method": "x"}}


def test_an_answer_is_stored_with_the_questions_of_the_entry_that_asked_them(worlds):
    world = worlds.create(at=PINNED)
    create = "after_sales_create_ticket"
    asked = worlds.append_trace(
        world, traced_call(world.id, create, {}, outcome="input_required", input_requests=[QUESTION], state_out="s1")
    )
    worlds.append_trace(world, traced_call(world.id, "after_sales_query_ticket", {"ticket_id": "T-2026-0001"}))
    answered = worlds.append_trace(world, traced_call(world.id, create, {}, input_responses=[ANSWER], state_in="s1"))
    stray = worlds.append_trace(world, traced_call(world.id, create, {}, input_responses=[ANSWER], state_in="s9"))
    assert [entry["seq"] for entry in worlds.trace(world.id)] == [1, 2, 3, 4]
    assert asked["rounds"] == [{"via": "input_required", "questions": [QUESTION], "answers": None, "answered_by": None}]
    assert answered["resumes"] == asked["seq"] == 1
    assert answered["rounds"] == [
        {"via": "input_required", "questions": [QUESTION], "answers": [ANSWER], "answered_by": "client"}
    ]
    assert stray["resumes"] is None and stray["rounds"][0]["questions"] == []  # kept, though nothing asked it here
    assert worlds.trace(world.id)[2] == answered


def test_a_fork_starts_with_an_empty_trace_and_a_reset_empties_it(worlds):
    world = worlds.create(at=PINNED)
    worlds.append_trace(world, traced_call(world.id, "after_sales_query_ticket", {"ticket_id": "T-2026-0001"}))
    fork = worlds.fork(world.id)
    assert worlds.trace(fork.id) == [] and len(worlds.trace(world.id)) == 1
    worlds.append_trace(fork, traced_call(fork.id, "after_sales_query_ticket", {"ticket_id": "T-2026-0002"}))
    worlds.reset(fork.id)
    worlds.reset(world.id)
    assert worlds.trace(fork.id) == [] == worlds.trace(world.id)


def audit_rows(factory) -> int:
    with factory() as session:
        return session.scalar(select(func.count()).select_from(ToolCall)) or 0


def record(world: str | None) -> CallRecord:
    return CallRecord(PINNED, "agent", "after_sales_query_ticket", {}, True, "ok", None, 1, False, 1.0, world=world)


def test_a_worlds_audit_records_are_written_to_its_database_and_a_dropped_worlds_are_counted(worlds, app):
    first, second = worlds.create(at=PINNED), worlds.create(at=PINNED)

    def world_sessions(world_id: str):
        try:
            return worlds.engines.sessions(worlds.get(world_id).location)
        except UnknownWorld:
            return None

    audit = AuditLog(app.session_factory, timedelta(days=30), world_sessions)
    default_before = audit_rows(app.session_factory)
    for world in (first.id, first.id, second.id, None):
        audit.record(record(world))
    audit.flush()
    counts = [audit_rows(world_sessions(world.id)) for world in (first, second)]
    assert counts == [2, 1] and audit_rows(app.session_factory) == default_before + 1
    worlds.drop(second.id)
    audit.record(record(second.id))
    audit.record(record(first.id))
    audit.flush()
    audit.close()
    assert audit.dropped == 1 and audit_rows(world_sessions(first.id)) == 3

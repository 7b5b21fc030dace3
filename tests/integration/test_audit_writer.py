"""The audit writer on a real database: bad records are fitted or dropped alone, the writer keeps running, and
records are purged after their retention."""

import json
import logging
from datetime import UTC, datetime, timedelta

from freezegun import freeze_time
from sqlalchemy import Row, select, text

from aftersales.storage.audit import ARGUMENTS_LIMIT, AuditLog, CallRecord
from aftersales.storage.models import ToolCall
from tests.support.audit import AT, call_record
from tests.support.database import count_rows

WIDTH = {column.name: getattr(column.type, "length", None) for column in ToolCall.__table__.columns}


def call(number: int, **changes: object) -> CallRecord:
    """A plain, valid record; `number` tells records apart."""
    numbered = {"called_at": AT + timedelta(seconds=number), "arguments": {"ticket_id": f"T-2026-{number:04d}"}}
    return call_record(**(numbered | changes))


def written(app, *records: CallRecord) -> tuple[AuditLog, list[Row]]:
    """Queue `records` on a fresh writer, let it write them, and read back every stored row."""
    audit = AuditLog(app.session_factory, timedelta(days=30))
    for record in records:
        audit.record(record)
    audit.flush()
    with app.uow() as uow:
        rows = list(uow.session.execute(select(ToolCall.__table__).order_by(ToolCall.id)))
    audit.close()
    return audit, rows


def ticket_ids(rows: list[Row]) -> list[str]:
    return [json.loads(row.arguments)["ticket_id"] for row in rows]


def test_a_tool_name_longer_than_its_column_is_cut_and_does_not_drop_the_batch(app):
    audit, rows = written(app, call(1), call(2, tool="t" * 300, caller="c" * 300, error_kind="k" * 300), call(3))
    assert ticket_ids(rows) == ["T-2026-0001", "T-2026-0002", "T-2026-0003"]
    cut = rows[1]
    assert [len(cut.tool), len(cut.caller), len(cut.error_kind)] == [WIDTH[c] for c in ("tool", "caller", "error_kind")]
    assert cut.tool.startswith("ttt") and cut.tool.endswith("…")
    assert audit.dropped == 0


def test_nul_and_lone_surrogates_are_stored_on_both_databases(app):
    hostile = {"ticket_id": "T-2026-\x00\ud800", "\udc00key": ["a\x00", {"b": "\ud83d"}]}
    audit, rows = written(app, call(1, caller="bot\x00\ud800", error_kind="kind\udfff", arguments=hostile), call(2))
    assert json.loads(rows[0].arguments) == hostile  # kept exactly, as JSON escapes
    assert (rows[0].caller, rows[0].error_kind) == ("bot\ufffd\ufffd", "kind\ufffd")
    assert ticket_ids(rows[1:]) == ["T-2026-0002"] and audit.dropped == 0


def test_a_row_the_database_refuses_is_dropped_alone_and_counted(app, caplog):
    caplog.set_level(logging.ERROR, logger="aftersales.storage.audit")
    refused = call(2, outcome="exploded")  # the outcome CHECK constraint refuses it on both databases
    audit, rows = written(app, call(1), refused, call(3), call(4, latency_ms=-1.0), call(5))
    assert ticket_ids(rows) == ["T-2026-0001", "T-2026-0003", "T-2026-0005"]
    assert audit.dropped == 2
    assert sum("was refused" in r.getMessage() for r in caplog.records) == 2


def test_a_record_that_cannot_even_be_prepared_is_dropped_alone(app):
    class Unprintable:
        def __str__(self) -> str:
            raise RuntimeError("no text for you")

    audit, rows = written(app, call(1), call(2, arguments={"ticket_id": Unprintable()}), call(3))
    assert ticket_ids(rows) == ["T-2026-0001", "T-2026-0003"] and audit.dropped == 1


def test_oversize_and_deeply_nested_arguments_are_bounded(app):
    deep: object = "bottom"
    for _ in range(200):
        deep = {"down": deep}
    nested = {"ticket_id": "T-2026-0001", "deep": deep, "extra": {"password": "s3cret"}}
    huge = {"ticket_id": "T-2026-0002", "notes": ["n" * 100_000] * 10_000, "token": "s3cret"}
    audit, rows = written(app, call(1, arguments=nested), call(2, arguments=huge))
    kept = json.loads(rows[0].arguments)
    assert kept["ticket_id"] == "T-2026-0001" and kept["extra"] == {"password": "[redacted]"}
    assert kept["deep"]["down"]["down"]["down"] == "[nested]"
    assert len(rows[1].arguments) <= 2 * ARGUMENTS_LIMIT and set(json.loads(rows[1].arguments)) == {"_cut"}
    assert "s3cret" not in rows[0].arguments + rows[1].arguments and audit.dropped == 0


def test_the_writer_keeps_running_through_a_database_error_and_records_later_calls(app):
    audit = AuditLog(app.session_factory, timedelta(days=30))
    with app.engine.begin() as connection:
        connection.execute(text("ALTER TABLE tool_calls RENAME TO tool_calls_away"))
    for number in (1, 2, 3):
        audit.record(call(number))
    audit.flush()
    with app.engine.begin() as connection:
        connection.execute(text("ALTER TABLE tool_calls_away RENAME TO tool_calls"))
    audit.record(call(4))
    audit.flush()
    with app.uow() as uow:
        rows = list(uow.session.execute(select(ToolCall.__table__)))
    audit.close()
    assert ticket_ids(rows) == ["T-2026-0004"] and audit.dropped == 3


def test_audit_records_are_purged_after_their_retention(app):
    old = datetime(2026, 10, 1, tzinfo=UTC)
    for moment in (old, old + timedelta(days=31)):
        with freeze_time(moment):
            log = AuditLog(app.session_factory, timedelta(days=30))
            log.record(call_record(called_at=moment))
            log.close()
    assert count_rows(app.engine, ToolCall) == 1

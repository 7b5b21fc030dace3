"""Tool health from the audit, computed by the database on both backends, and `aftersales stats` printing it."""

import json
import random
from datetime import UTC, datetime, timedelta

from freezegun import freeze_time
from sqlalchemy import event, insert

from aftersales.cli.main import main
from aftersales.domain.calls import REPEAT_WINDOW
from aftersales.seeding.generator import World
from aftersales.services.stats import ToolStats, tool_stats
from aftersales.storage.audit import CallRecord, row_of
from aftersales.storage.models import ToolCall
from tests.support.audit import call_record
from tests.support.fakes import FakeDatabase, FakeUnitOfWork

SINCE = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
QUERY, ESTIMATE = "after_sales_query_ticket", "after_sales_estimate_refund"


def call(caller: str, at: datetime, latency_ms: float, outcome: str = "ok", tool: str = QUERY, **more) -> CallRecord:
    """A record of one call; the rest of its fields ordinary unless given."""
    error_kind = None if outcome in ("ok", "input_required") else "tool"
    return call_record(
        called_at=at, caller=caller, tool=tool, outcome=outcome, error_kind=error_kind, latency_ms=latency_ms, **more
    )


def store(app, records: list[CallRecord]) -> None:
    """Insert `records` in this order, so their ids follow it."""
    with app.session_factory() as session, session.begin():
        session.execute(insert(ToolCall.__table__), [row_of(record) for record in records])


def test_stats_count_repeats_per_caller_and_tool_within_five_minutes_and_take_nearest_rank_latencies(app):
    t0 = SINCE + timedelta(minutes=1)
    store(
        app,
        [
            call("dave", SINCE - timedelta(microseconds=1), 15, "tool_error"),  # before the period: not counted
            call("alice", t0, 10, "tool_error", arguments_valid=False),
            call("alice", t0 + timedelta(minutes=1), 5, tool=ESTIMATE),  # another tool: not part of the streak
            call("alice", t0 + REPEAT_WINDOW, 20, "tool_error"),  # exactly five minutes later: a repeat
            call("alice", t0 + 2 * REPEAT_WINDOW + timedelta(microseconds=1), 30),  # a microsecond too late
            call("alice", t0 + timedelta(minutes=11), 70, input_round=2),
            call("bob", t0 + timedelta(seconds=1), 40, "protocol_error"),
            call("bob", t0 + timedelta(seconds=2), 50),  # a repeat
            call("bob", t0 + timedelta(seconds=3), 60, replayed=True),
            call("carol", t0 + timedelta(seconds=4), 80, "tool_error"),
            call("carol", t0 + timedelta(seconds=4), 90),  # the same moment, recorded after: a repeat
            call("dave", SINCE + timedelta(seconds=1), 15),  # dave's failure is outside the period: no repeat
        ],
    )
    assert tool_stats(app.uow(), SINCE) == [
        ToolStats(ESTIMATE, 1, 1.0, 0.0, 0.0, 0, 0, 0, 5.0, 5.0),
        # latencies 10 15 20 30 40 50 60 70 80 90: p50 is the 5th, p95 the 10th
        ToolStats(QUERY, 10, 0.9, 0.4, 0.5, 1, 1, 3, 40.0, 90.0),
    ]


def reference(records: list[CallRecord], since: datetime) -> list[ToolStats]:
    """The figures worked out record by record in Python, by the fake unit of work's audit (tests/support/fakes.py)."""
    database = FakeDatabase(World(anchor=since), since)
    database.tables.rows["tool_calls"] = [row_of(record) for record in records]
    return tool_stats(FakeUnitOfWork(database), since)


def test_stats_from_sql_match_the_figures_worked_out_call_by_call(app):
    chance = random.Random(20261130)
    moment, records = SINCE - timedelta(minutes=10), []
    for _ in range(400):
        moment += timedelta(microseconds=chance.choice([0, 1, 250_000, 60_000_000, 300_000_000, 300_000_001]))
        records.append(
            call(
                chance.choice(["alice", "bob", "carol"]),
                moment,
                round(chance.uniform(0.5, 200), 3) if chance.random() < 0.8 else 7.0,  # ties too
                chance.choice(["ok", "ok", "tool_error", "protocol_error", "input_required"]),
                tool=chance.choice([QUERY, ESTIMATE, "after_sales_create_ticket", "unknown"]),
                arguments_valid=chance.random() < 0.85,
                input_round=chance.choice([1, 1, 2]),
                replayed=chance.random() < 0.1,
            )
        )
    store(app, records)
    assert tool_stats(app.uow(), SINCE) == reference(records, SINCE)


def test_stats_fetch_one_row_per_tool_however_many_calls_were_recorded(app):
    tools = (QUERY, ESTIMATE, "after_sales_create_ticket")
    store(app, [call("bot", SINCE + timedelta(seconds=i), i % 50, tool=tools[i % 3]) for i in range(600)])
    statements: list[tuple[str, object]] = []

    def remember(_connection, _cursor, statement, parameters, _context, _many) -> None:
        statements.append((statement, parameters))

    event.listen(app.engine, "before_cursor_execute", remember)
    figures = tool_stats(app.uow(), SINCE)
    event.remove(app.engine, "before_cursor_execute", remember)
    # Run what the stats ran once more, to count the rows the database handed to Python.
    with app.engine.connect() as connection:
        fetched = [
            len(connection.exec_driver_sql(sql, parameters).all())
            for sql, parameters in statements
            if sql.lstrip().upper().startswith(("SELECT", "WITH"))
        ]
    assert [f.calls for f in figures] == [200, 200, 200]
    assert sum(fetched) == len(tools)


def test_stats_table_says_so_when_no_calls_were_recorded(app, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("AFTERSALES_DATABASE_URL", app.settings.resolved_database_url)
    monkeypatch.setenv("AFTERSALES_DATA_DIR", str(tmp_path / "var"))
    assert main(["stats", "--since", "1h"]) == 0
    assert main(["stats", "--since", "1h", "--json"]) == 0
    table, document = capsys.readouterr().out.split("{", 1)
    assert "tool  calls  parameter_hit_rate" in table and "(no calls recorded)" in table
    assert "tickets by channel since" in table and ["channel", "opened", "cancelled"] in map(
        str.split, table.splitlines()
    )
    report = json.loads("{" + document)
    assert report["tools"] == []
    assert [row["channel"] for row in report["tickets_by_channel"]] == ["app", "web", "miniprogram", "unknown"]


def test_stats_table_lists_each_tool_of_the_period(app, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("AFTERSALES_DATABASE_URL", app.settings.resolved_database_url)
    monkeypatch.setenv("AFTERSALES_DATA_DIR", str(tmp_path / "var"))
    store(app, [call("bot", SINCE + timedelta(minutes=1), 12.5), call("bot", SINCE + timedelta(minutes=2), 3.25)])
    with freeze_time(SINCE + timedelta(minutes=30)):
        assert main(["stats", "--since", "1h"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "tool calls since 2026-11-30T07:30:00Z"
    assert lines[2].split() == [QUERY, "2", "1.0", "0.0", "0.0", "3.25", "12.5"]


def test_tickets_are_counted_by_the_channel_they_were_raised_in_and_cancellations_by_theirs(app, stories):
    from aftersales.clock import now
    from aftersales.domain.enums import Channel, ReasonCode
    from aftersales.services.stats import channel_stats
    from tests.support.cancellation import cancel, cancel_request
    from tests.support.creation import create, ticket_request

    since = now() - timedelta(hours=1)

    def counts() -> dict[str, tuple[int, int]]:
        return {row.channel: (row.opened, row.cancelled) for row in channel_stats(app.uow(), since)}

    before = counts()
    order_id = stories["cheap_tshirts_in_window"]["order_id"]
    opened = create(app, ticket_request(order_id, reason=ReasonCode.WRONG_ITEM, channel=Channel.WEB))
    assert opened.ticket is not None
    cancel(app, cancel_request(opened.ticket.ticket_id, channel=Channel.APP))
    create(app, ticket_request(order_id, reason=ReasonCode.WRONG_ITEM))  # the line is free again; no channel said
    after = counts()
    assert list(after) == ["app", "web", "miniprogram", "unknown"]
    change = {
        channel: (after[channel][0] - before[channel][0], after[channel][1] - before[channel][1]) for channel in after
    }
    assert change == {"app": (0, 1), "web": (1, 0), "miniprogram": (0, 0), "unknown": (1, 0)}

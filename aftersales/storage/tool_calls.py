"""The audit's table: writing batches of call records, purging old ones, and each tool's figures, all in SQL.

The figures come back as one row per tool, whatever the number of audit records in the period.
"""

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import BigInteger, ColumnElement, Over, Select, and_, case, delete, func, insert, select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import Session
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement

from aftersales.domain.calls import FAILED, REPEAT_WINDOW, nearest_rank
from aftersales.services.ports import repositories as ports
from aftersales.services.ports.rows import ToolFigures
from aftersales.storage.base import table_of
from aftersales.storage.models import ToolCall


class EpochMicros(FunctionElement[int]):
    """A stored time as whole microseconds since 1970, so time differences are exact on both databases."""

    type = BigInteger()
    inherit_cache = True


@compiles(EpochMicros, "postgresql")
def _epoch_micros_postgresql(element: EpochMicros, compiler: SQLCompiler, **kw: Any) -> str:
    return f"CAST(EXTRACT(EPOCH FROM {compiler.process(element.clauses, **kw)}) * 1000000 AS BIGINT)"


@compiles(EpochMicros, "sqlite")
def _epoch_micros_sqlite(element: EpochMicros, compiler: SQLCompiler, **kw: Any) -> str:
    # SQLite holds the time as text 'YYYY-MM-DD HH:MM:SS.ffffff': the whole seconds, plus the six digits after them.
    value = compiler.process(element.clauses, **kw)
    return f"(CAST(strftime('%s', {value}) AS INTEGER) * 1000000 + CAST(substr({value}, 21, 6) AS INTEGER))"


class SqlToolCallRepository(ports.ToolCallRepository):
    """Audit records of tool calls."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def add_many(self, rows: list[dict[str, Any]]) -> None:
        """Insert rows (already fit for their columns) in one executemany; no ORM objects per record."""
        self.session.execute(insert(table_of(ToolCall)), rows)

    def purge_before(self, cutoff: datetime) -> None:
        """Delete the records of calls made before `cutoff`."""
        self.session.execute(delete(ToolCall).where(ToolCall.called_at < cutoff))

    def figures(self, since: datetime) -> list[ToolFigures]:
        """Each tool's figures for calls at or after `since`, in no particular order."""
        return [ToolFigures(*row) for row in self.session.execute(figures_query(since))]


def figures_query(since: datetime) -> Select[Any]:
    """One row per tool: counts, repeats after a failure (LAG per caller and tool) and nearest-rank latencies."""
    at = EpochMicros(ToolCall.called_at)

    def per_caller(call: FunctionElement[Any]) -> Over[Any]:
        """`call` over each caller's calls of each tool, in the order they were made."""
        return call.over(partition_by=(ToolCall.tool, ToolCall.caller), order_by=(ToolCall.called_at, ToolCall.id))

    calls = (
        select(
            ToolCall.tool,
            ToolCall.arguments_valid,
            ToolCall.outcome,
            ToolCall.input_round,
            ToolCall.replayed,
            ToolCall.latency_ms,
            per_caller(func.lag(ToolCall.outcome)).label("previous_outcome"),
            (at - per_caller(func.lag(at))).label("micros_since_previous"),
            func.row_number().over(partition_by=ToolCall.tool, order_by=ToolCall.latency_ms).label("latency_rank"),
            func.count().over(partition_by=ToolCall.tool).label("tool_calls"),
        )
        .where(ToolCall.called_at >= since)
        .subquery()
    )

    def how_many(condition: ColumnElement[Any]) -> ColumnElement[int]:
        return func.sum(case((condition, 1), else_=0))

    def latency_at(fraction: float) -> ColumnElement[float]:
        return func.max(case((calls.c.latency_rank == nearest_rank(calls.c.tool_calls, fraction), calls.c.latency_ms)))

    # domain.calls.repeats_failure, over the previous call of the same caller and tool.
    repeat = and_(
        calls.c.previous_outcome.in_(FAILED),
        calls.c.micros_since_previous <= REPEAT_WINDOW // timedelta(microseconds=1),
    )
    return select(
        calls.c.tool,
        func.count().label("calls"),
        how_many(calls.c.arguments_valid).label("valid"),
        how_many(calls.c.outcome.in_(FAILED)).label("failed"),
        how_many(calls.c.input_round > 1).label("resumed"),
        how_many(calls.c.replayed).label("replays"),
        how_many(repeat).label("repeats"),
        latency_at(0.5).label("p50"),
        latency_at(0.95).label("p95"),
    ).group_by(calls.c.tool)

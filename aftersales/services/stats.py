"""Tool health from the audit: hit rate, failure rate, retry rate and latency percentiles per tool, all in SQL.

The database returns one row per tool, whatever the number of audit records in the period.
"""

from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import BigInteger, ColumnElement, Select, and_, case, func, select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement

from aftersales.storage.models import ToolCall
from aftersales.storage.unit_of_work import UnitOfWork

REPEAT_WINDOW = timedelta(minutes=5)
FAILED = ("tool_error", "protocol_error")
PRECISION = 10_000  # percentile fractions are taken in ten-thousandths, so the rank is exact integer arithmetic
Count = TypeVar("Count", int, ColumnElement[Any])


@dataclass(frozen=True)
class ToolStats:
    """One tool's figures over a period."""

    tool: str
    calls: int
    parameter_hit_rate: float  # calls whose arguments passed validation / all calls
    failure_rate: float  # tool errors and protocol errors / all calls
    retry_rate: float  # input_required retries, idempotent replays and repeats after a failure / all calls
    input_required_retries: int
    replays: int
    repeats_after_failure: int
    p50_ms: float
    p95_ms: float

    def as_dict(self) -> dict[str, object]:
        """Plain JSON-ready fields."""
        return asdict(self)


def nearest_rank(count: Count, fraction: float) -> Count:
    """The 1-based rank of the nearest-rank percentile, ceil(count × fraction): for ints and SQL expressions alike.

    This is the project's one percentile definition: the p-th percentile of n values is the value at this rank
    in ascending order (p50 of 1..4 is 2, p95 of 1..20 is 19, any percentile of one value is that value).
    """
    parts = round(fraction * PRECISION)
    if not 0 < parts <= PRECISION:
        raise ValueError(f"a percentile fraction must be above 0 and at most 1, got {fraction}")
    return (count * parts + (PRECISION - 1)) // PRECISION


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile of `values` (0 when there are none)."""
    if not values:
        return 0.0
    return sorted(values)[nearest_rank(len(values), fraction) - 1]


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


def tool_stats(uow: UnitOfWork, since: datetime) -> list[ToolStats]:
    """Per-tool figures for calls at or after `since`, tools in name order."""
    with uow:
        rows = uow.session.execute(figures_query(since)).all()
    # Sorted here, not in SQL, so the order never depends on the database's collation.
    return sorted((_figures(row) for row in rows), key=lambda entry: entry.tool)


def figures_query(since: datetime) -> Select[Any]:
    """One row per tool: counts, repeats after a failure (LAG per caller and tool) and nearest-rank latencies."""
    at = EpochMicros(ToolCall.called_at)
    same_caller = {"partition_by": (ToolCall.tool, ToolCall.caller), "order_by": (ToolCall.called_at, ToolCall.id)}
    calls = (
        select(
            ToolCall.tool,
            ToolCall.arguments_valid,
            ToolCall.outcome,
            ToolCall.input_round,
            ToolCall.replayed,
            ToolCall.latency_ms,
            func.lag(ToolCall.outcome).over(**same_caller).label("previous_outcome"),
            (at - func.lag(at).over(**same_caller)).label("micros_since_previous"),
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


def _figures(row: Any) -> ToolStats:
    count = row.calls
    return ToolStats(
        tool=row.tool,
        calls=count,
        parameter_hit_rate=round(row.valid / count, 4),
        failure_rate=round(row.failed / count, 4),
        retry_rate=round((row.resumed + row.replays + row.repeats) / count, 4),
        input_required_retries=row.resumed,
        replays=row.replays,
        repeats_after_failure=row.repeats,
        p50_ms=round(row.p50, 3),
        p95_ms=round(row.p95, 3),
    )

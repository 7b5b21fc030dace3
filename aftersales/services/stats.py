"""Tool health from the audit: hit rate, failure rate, retry rate and latency percentiles per tool."""

from collections import defaultdict
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from sqlalchemy import select

from aftersales.clock import as_utc
from aftersales.storage.models import ToolCall
from aftersales.storage.unit_of_work import UnitOfWork

REPEAT_WINDOW = timedelta(minutes=5)
FAILED = ("tool_error", "protocol_error")


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


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (0 when there are no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * fraction // 1))  # ceil(n * p), at least 1
    return round(ordered[int(rank) - 1], 3)


def tool_stats(uow: UnitOfWork, since: datetime) -> list[ToolStats]:
    """Per-tool figures for calls at or after `since`, tools in name order."""
    with uow:
        rows = uow.session.scalars(
            select(ToolCall).where(ToolCall.called_at >= since).order_by(ToolCall.called_at, ToolCall.id)
        ).all()
        calls = [
            (
                r.tool,
                r.caller,
                as_utc(r.called_at),
                r.outcome,
                r.arguments_valid,
                r.input_round,
                r.replayed,
                r.latency_ms,
            )
            for r in rows
        ]
    by_tool: dict[str, list[tuple]] = defaultdict(list)
    for call in calls:
        by_tool[call[0]].append(call)
    return [_figures(tool, entries) for tool, entries in sorted(by_tool.items())]


def _figures(tool: str, entries: list[tuple]) -> ToolStats:
    last_failure: dict[str, datetime] = {}
    repeats = 0
    for _, caller, at, outcome, *_rest in entries:
        failed_before = last_failure.get(caller)
        if failed_before is not None and at - failed_before <= REPEAT_WINDOW:
            repeats += 1
        if outcome in FAILED:
            last_failure[caller] = at
        else:
            last_failure.pop(caller, None)
    count = len(entries)
    valid = sum(1 for e in entries if e[4])
    failed = sum(1 for e in entries if e[3] in FAILED)
    resumed = sum(1 for e in entries if e[5] > 1)
    replays = sum(1 for e in entries if e[6])
    latencies = [e[7] for e in entries]
    return ToolStats(
        tool=tool,
        calls=count,
        parameter_hit_rate=round(valid / count, 4),
        failure_rate=round(failed / count, 4),
        retry_rate=round((resumed + replays + repeats) / count, 4),
        input_required_retries=resumed,
        replays=replays,
        repeats_after_failure=repeats,
        p50_ms=percentile(latencies, 0.5),
        p95_ms=percentile(latencies, 0.95),
    )

"""Tool health from the audit: hit rate, failure rate, retry rate and latency percentiles per tool.

The figures are worked out by the database (storage.tool_calls); the rules behind them are in domain.calls.
"""

from dataclasses import asdict, dataclass
from datetime import datetime

from aftersales.domain.calls import CHANNELS, channel_label
from aftersales.services.ports.rows import ToolFigures
from aftersales.services.ports.unit_of_work import UnitOfWork


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


def tool_stats(uow: UnitOfWork, since: datetime) -> list[ToolStats]:
    """Per-tool figures for calls at or after `since`, tools in name order."""
    with uow:
        figures = uow.tool_calls.figures(since)
    # Sorted here, not in SQL, so the order never depends on the database's collation.
    return sorted((_stats(entry) for entry in figures), key=lambda entry: entry.tool)


@dataclass(frozen=True)
class ChannelStats:
    """Tickets opened and cancelled over a period from one channel (unknown: the call did not say)."""

    channel: str
    opened: int
    cancelled: int

    def as_dict(self) -> dict[str, object]:
        """Plain JSON-ready fields."""
        return asdict(self)


def channel_stats(uow: UnitOfWork, since: datetime) -> list[ChannelStats]:
    """Tickets opened (by where they were raised) and cancellations (by where they came from) at or after `since`.

    Every channel has a row, in a fixed order, so a report reads the same whatever happened.
    """
    with uow:
        rows = uow.tickets.by_channel(since)
    counts = {(change, channel): 0 for change in ("opened", "cancelled") for channel in CHANNELS}
    for change, channel, count in rows:
        counts[(change, channel_label(channel))] += count
    return [ChannelStats(channel, counts[("opened", channel)], counts[("cancelled", channel)]) for channel in CHANNELS]


def _stats(figures: ToolFigures) -> ToolStats:
    count = figures.calls
    return ToolStats(
        tool=figures.tool,
        calls=count,
        parameter_hit_rate=round(figures.valid / count, 4),
        failure_rate=round(figures.failed / count, 4),
        retry_rate=round((figures.resumed + figures.replays + figures.repeats) / count, 4),
        input_required_retries=figures.resumed,
        replays=figures.replays,
        repeats_after_failure=figures.repeats,
        p50_ms=round(figures.p50, 3),
        p95_ms=round(figures.p95, 3),
    )

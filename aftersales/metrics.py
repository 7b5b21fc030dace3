"""Per-process tool-call metrics on a registry of this App's own, exposed by prometheus_client."""

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.exposition import choose_encoder
from prometheus_client.gc_collector import GCCollector
from prometheus_client.metrics_core import CounterMetricFamily, Metric
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

from aftersales.domain.calls import CHANNELS, OUTCOMES, RETRY_KINDS, TICKET_CHANGES, UNKNOWN

BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    """Counters a scraper sums across replicas; label values come from fixed sets, so no caller can add series."""

    def __init__(self) -> None:
        # A registry per App: tests and several apps in one process never share (or collide on) a series.
        self.registry = CollectorRegistry()
        for collector in (ProcessCollector, PlatformCollector, GCCollector):
            collector(registry=self.registry)
        self._calls = Counter(
            "aftersales_tool_calls", "Tool calls by tool and outcome.", ["tool", "outcome"], registry=self.registry
        )
        self._argument_failures = Counter(
            "aftersales_tool_argument_failures",
            "Tool calls whose arguments failed validation.",
            ["tool"],
            registry=self.registry,
        )
        self._retries = Counter(
            "aftersales_tool_retries",
            "Retries: input_required resumptions, replays, repeats.",
            ["tool", "kind"],
            registry=self.registry,
        )
        self._duration = Histogram(
            "aftersales_tool_call_duration_seconds",
            "Tool call latency.",
            ["tool"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        self._tickets = Counter(
            "aftersales_tickets",
            "Tickets opened and cancelled through the tools, by the channel the call named (unknown: none).",
            ["change", "channel"],
            registry=self.registry,
        )
        for change in sorted(set(TICKET_CHANGES.values())):
            for channel in CHANNELS:
                self._tickets.labels(change, channel)
        self._tools: frozenset[str] = frozenset()
        # Each series' child, looked up once: prometheus_client's labels() checks and locks on every call.
        self._children: dict[tuple[str, ...], Any] = {}
        self._dropped: Callable[[], int] = lambda: 0
        self.registry.register(_AuditDropped(lambda: self._dropped()))

    def bind(self, tools: Iterable[str], audit_dropped: Callable[[], int]) -> None:
        """Name the tools that get series of their own, and where lost audit records are counted."""
        self._tools = frozenset(tools)
        self._dropped = audit_dropped
        # Every series exists from the start at zero, so a rate() over a fresh process is never missing.
        for tool in (*sorted(self._tools), UNKNOWN):
            self._argument_failures.labels(tool)
            self._duration.labels(tool)
            for outcome in OUTCOMES:
                self._calls.labels(tool, outcome)
            for kind in RETRY_KINDS:
                self._retries.labels(tool, kind)

    def observe(self, tool: str, outcome: str, arguments_valid: bool, retry_kinds: list[str], seconds: float) -> None:
        """Count one call; a tool name or outcome outside the known sets counts as `unknown`."""
        tool = tool if tool in self._tools else UNKNOWN
        self._child("calls", tool, outcome if outcome in OUTCOMES else UNKNOWN).inc()
        if not arguments_valid:
            self._child("argument_failures", tool).inc()
        for kind in retry_kinds:
            self._child("retries", tool, kind if kind in RETRY_KINDS else UNKNOWN).inc()
        self._child("duration", tool).observe(seconds)

    def ticket(self, change: str, channel: str) -> None:
        """Count a ticket opened or cancelled from `channel` (outside the channels: `unknown`)."""
        self._child("tickets", change, channel if channel in CHANNELS else UNKNOWN).inc()

    def _child(self, metric: str, *labels: str) -> Any:
        """The series of `metric` with these label values (the same child labels() returns)."""
        key = (metric, *labels)
        child = self._children.get(key)
        if child is None:
            # Label values come from fixed sets, so this holds at most one entry per series.
            child = self._children[key] = getattr(self, f"_{metric}").labels(*labels)
        return child

    def render(self, accept: str = "") -> tuple[bytes, str]:
        """The exposition the scraper asked for (OpenMetrics or Prometheus text) and its content type."""
        encode, content_type = choose_encoder(accept)
        return encode(self.registry), content_type


class _AuditDropped(Collector):
    """aftersales_audit_records_dropped_total, read from the audit writer at every scrape."""

    def __init__(self, read: Callable[[], int]) -> None:
        self._read = read

    def collect(self) -> Iterator[Metric]:
        """One counter sample."""
        yield CounterMetricFamily(
            "aftersales_audit_records_dropped",
            "Audit records that could not be written and were lost.",
            value=self._read(),
        )

"""Per-process tool-call counters and a latency histogram, rendered in Prometheus text format."""

import threading
from collections import defaultdict

BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    """Counters a scraper sums across replicas; every update takes one lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls: dict[tuple[str, str], int] = defaultdict(int)  # (tool, outcome)
        self.argument_failures: dict[str, int] = defaultdict(int)
        self.retries: dict[tuple[str, str], int] = defaultdict(int)  # (tool, kind)
        self.buckets: dict[str, list[int]] = defaultdict(lambda: [0] * len(BUCKETS))
        self.sums: dict[str, float] = defaultdict(float)
        self.counts: dict[str, int] = defaultdict(int)

    def observe(self, tool: str, outcome: str, arguments_valid: bool, retry_kinds: list[str], seconds: float) -> None:
        """Count one call."""
        with self._lock:
            self.calls[(tool, outcome)] += 1
            if not arguments_valid:
                self.argument_failures[tool] += 1
            for kind in retry_kinds:
                self.retries[(tool, kind)] += 1
            for index, bound in enumerate(BUCKETS):
                if seconds <= bound:
                    self.buckets[tool][index] += 1
            self.sums[tool] += seconds
            self.counts[tool] += 1

    def render(self) -> str:
        """The Prometheus text exposition of every series."""
        with self._lock:
            lines = [
                "# HELP aftersales_tool_calls_total Tool calls by tool and outcome.",
                "# TYPE aftersales_tool_calls_total counter",
                *(
                    f'aftersales_tool_calls_total{{tool="{t}",outcome="{o}"}} {n}'
                    for (t, o), n in sorted(self.calls.items())
                ),
                "# HELP aftersales_tool_argument_failures_total Tool calls whose arguments failed validation.",
                "# TYPE aftersales_tool_argument_failures_total counter",
                *(
                    f'aftersales_tool_argument_failures_total{{tool="{t}"}} {n}'
                    for t, n in sorted(self.argument_failures.items())
                ),
                "# HELP aftersales_tool_retries_total Retries: input_required resumptions, replays, repeats.",
                "# TYPE aftersales_tool_retries_total counter",
                *(
                    f'aftersales_tool_retries_total{{tool="{t}",kind="{k}"}} {n}'
                    for (t, k), n in sorted(self.retries.items())
                ),
                "# HELP aftersales_tool_call_duration_seconds Tool call latency.",
                "# TYPE aftersales_tool_call_duration_seconds histogram",
            ]
            for tool in sorted(self.counts):
                for bound, count in zip(BUCKETS, self.buckets[tool], strict=True):
                    lines.append(f'aftersales_tool_call_duration_seconds_bucket{{tool="{tool}",le="{bound}"}} {count}')
                lines.append(
                    f'aftersales_tool_call_duration_seconds_bucket{{tool="{tool}",le="+Inf"}} {self.counts[tool]}'
                )
                lines.append(f'aftersales_tool_call_duration_seconds_sum{{tool="{tool}"}} {self.sums[tool]:.6f}')
                lines.append(f'aftersales_tool_call_duration_seconds_count{{tool="{tool}"}} {self.counts[tool]}')
        return "\n".join(lines) + "\n"

"""Traces in tests: the OpenTelemetry SDK's in-memory exporter behind the process's one global tracer provider.

The global provider can be set once per process, and the mcp SDK's tracer keeps the first one it finds; so the
global is a `Switchable` that hands spans to a test's SDK provider inside `kept_spans()`, and to the API's
no-op otherwise (every other test sees what a server without traces sees: no span, no traceparent in `_meta`).
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace import TracerProvider as SdkTracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import NoOpTracerProvider, Tracer, TracerProvider

from aftersales.otel import switch


class Switchable(TracerProvider):
    """A tracer provider whose tracers hand every span to `target`, changed between tests."""

    def __init__(self) -> None:
        self.target: TracerProvider = NoOpTracerProvider()

    def get_tracer(self, instrumenting_module_name: str, *args: Any, **kwargs: Any) -> Tracer:
        """A tracer that asks `target` for the real one at each span."""
        return _Forwarding(self, instrumenting_module_name, args, kwargs)


class _Forwarding(Tracer):
    def __init__(self, provider: Switchable, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self._provider, self._name, self._args, self._kwargs = provider, name, args, kwargs

    def _real(self) -> Tracer:
        return self._provider.target.get_tracer(self._name, *self._args, **self._kwargs)

    def start_span(self, *args: Any, **kwargs: Any) -> Any:
        return self._real().start_span(*args, **kwargs)

    def start_as_current_span(self, *args: Any, **kwargs: Any) -> Any:
        return self._real().start_as_current_span(*args, **kwargs)


_switch = Switchable()


@contextmanager
def kept_spans() -> Iterator[InMemorySpanExporter]:
    """Traces on, as OTEL_* settings turn them on in `aftersales serve`, every span kept in memory, in end order."""
    if not isinstance(trace.get_tracer_provider(), Switchable):
        trace.set_tracer_provider(_switch)
    exporter = InMemorySpanExporter()
    provider = SdkTracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))  # exported as each span ends
    _switch.target = provider
    switch.enable(provider)
    try:
        yield exporter
    finally:
        switch.disable()
        _switch.target = NoOpTracerProvider()
        provider.shutdown()


def named(found: Sequence[ReadableSpan], name: str) -> list[ReadableSpan]:
    """The spans called `name`, in the order they ended."""
    return [span for span in found if span.name == name]


def inside(found: Sequence[ReadableSpan], parent: ReadableSpan) -> list[ReadableSpan]:
    """The spans whose parent is `parent`."""
    return [span for span in found if span.parent is not None and span.parent.span_id == parent.context.span_id]

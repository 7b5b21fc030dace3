"""Whether this process records traces, and the spans the project opens itself (the mcp SDK opens each request's).

Off, the default, no tracer is held: the middleware that describes a call on its span is not installed and a unit
of work opens no span, so what remains is the SDK's own span per request, a no-op of the OpenTelemetry API.
"""

from collections.abc import Mapping

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Tracer, TracerProvider
from opentelemetry.util.types import AttributeValue

from aftersales import __version__

SCOPE = "aftersales"  # the instrumentation scope of the project's own spans
_tracer: Tracer | None = None


def enable(provider: TracerProvider) -> None:
    """Record the project's spans on `provider` (the process's, set by otel.setup; a test's in-memory one)."""
    global _tracer
    _tracer = provider.get_tracer(SCOPE, __version__)


def disable() -> None:
    """Record nothing of the project's own any more."""
    global _tracer
    _tracer = None


def enabled() -> bool:
    """Whether traces are on in this process."""
    return _tracer is not None


def child_span(name: str, attributes: Mapping[str, AttributeValue]) -> Span | None:
    """A span under the current one, started now; None when traces are off or nothing records here.

    Work outside any request (the audit writer's thread, housekeeping) has no recording span around it, and gets no
    trace of its own: a trace is a request's.
    """
    tracer = _tracer
    if tracer is None or not trace.get_current_span().is_recording():
        return None
    return tracer.start_span(name, kind=SpanKind.CLIENT, attributes=attributes)

"""Traces from the standard OTEL_* settings: the OpenTelemetry SDK and its OTLP exporter (the `otel` extra).

Traces are on when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or
OTEL_TRACES_EXPORTER names an exporter, and OTEL_SDK_DISABLED is not true. The SDK reads the rest itself:
OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER and its argument, OTEL_BSP_* for the batches,
the exporter's headers, timeout, compression and certificates. Without those settings nothing here is imported.
"""

import os
import sys
from typing import TYPE_CHECKING

from opentelemetry import trace

from aftersales import __version__
from aftersales.otel import switch

if TYPE_CHECKING:
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter

ENDPOINTS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
PROTOCOLS = ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
EXPORTERS = ("otlp", "console", "none")  # what OTEL_TRACES_EXPORTER may name here
DEFAULT_SERVICE = "aftersales"  # service.name unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise


_provider: "TracerProvider | None" = None  # the provider start() installed, for stop()


class TracesUnavailable(ValueError):
    """The settings ask for traces this installation cannot export: the start stops, naming the setting."""


def wanted() -> bool:
    """Whether the OTEL_* settings of this process ask for traces."""
    if _setting("OTEL_SDK_DISABLED").lower() == "true":
        return False
    exporters = _exporters()
    if exporters == ["none"]:
        return False
    return bool(_setting("OTEL_TRACES_EXPORTER")) or any(_setting(name) for name in ENDPOINTS)


def start() -> bool:
    """Install the process's tracer provider when the settings ask for traces; whether they did."""
    global _provider
    if not wanted():
        return False
    try:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        raise TracesUnavailable(
            f"{_asking()} asks for traces, but the OpenTelemetry SDK is not installed. Install the otel extra "
            "(pip install 'aftersales[otel]'), or unset the OTEL_* settings to serve without traces."
        ) from None
    provider = TracerProvider(resource=resource())  # the sampler comes from OTEL_TRACES_SAMPLER
    for exporter in exporters():
        provider.add_span_processor(BatchSpanProcessor(exporter))  # spans leave off the request path
    trace.set_tracer_provider(provider)
    switch.enable(provider)
    _provider = provider
    return True


def stop() -> None:
    """Send the spans still batched and stop exporting; nothing when start() installed nothing."""
    global _provider
    provider, _provider = _provider, None
    if provider is not None:
        switch.disable()
        provider.shutdown()


def resource() -> "Resource":
    """What the spans say of this process: OTEL_SERVICE_NAME (aftersales by default), its version, OTEL_RESOURCE_*."""
    from opentelemetry.sdk.resources import SERVICE_NAME, SERVICE_VERSION, Resource

    found = Resource.create({SERVICE_VERSION: __version__})
    if str(found.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        found = found.merge(Resource({SERVICE_NAME: DEFAULT_SERVICE}))
    return found


def exporters() -> list["SpanExporter"]:
    """The exporters OTEL_TRACES_EXPORTER names (otlp by default), each configured by its own OTEL_* settings."""
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter

    made: list[SpanExporter] = []
    for name in _exporters():
        if name == "otlp":
            made.append(_otlp())
        elif name == "console":
            made.append(ConsoleSpanExporter(out=sys.stderr))  # stdout is the protocol's under serve --stdio
        elif name != "none":
            raise TracesUnavailable(
                f"OTEL_TRACES_EXPORTER names {name!r}, which this server does not export to. Name one or more of "
                f"{', '.join(EXPORTERS)}, separated by commas."
            )
    return made


def _otlp() -> "SpanExporter":
    """OTLP over HTTP/protobuf (shipped), or over gRPC when its exporter package is installed as well."""
    protocol = next((value for value in map(_setting, PROTOCOLS) if value), "http/protobuf")
    if protocol == "http/protobuf":
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError:
            raise TracesUnavailable(
                f"{_asking()} asks for traces over OTLP, but the OTLP exporter is not installed. Install the otel "
                "extra (pip install 'aftersales[otel]')."
            ) from None
        return OTLPSpanExporter()
    if protocol == "grpc":
        try:
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (  # type: ignore[import-not-found]
                OTLPSpanExporter as GrpcSpanExporter,
            )
        except ImportError:
            raise TracesUnavailable(
                "OTEL_EXPORTER_OTLP_PROTOCOL is grpc, whose exporter is not installed: install "
                "opentelemetry-exporter-otlp-proto-grpc beside the otel extra, or use http/protobuf (the default)."
            ) from None
        exporter: SpanExporter = GrpcSpanExporter()
        return exporter
    raise TracesUnavailable(
        f"The OTLP protocol {protocol!r} is not one this server exports over. Use http/protobuf (the default) or grpc."
    )


def _exporters() -> list[str]:
    """OTEL_TRACES_EXPORTER as a list of names, otlp when unset."""
    names = [name.strip().lower() for name in _setting("OTEL_TRACES_EXPORTER").split(",") if name.strip()]
    return names or ["otlp"]


def _asking() -> str:
    """The setting that turned traces on, for a message."""
    return next((name for name in ("OTEL_TRACES_EXPORTER", *ENDPOINTS) if _setting(name)), "OTEL_TRACES_EXPORTER")


def _setting(name: str) -> str:
    return os.environ.get(name, "").strip()

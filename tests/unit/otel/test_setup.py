"""Which OTEL_* settings turn traces on, what the spans say of the process, and the OTLP exporter really sending."""

import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from aftersales import __version__
from aftersales.otel import setup

OTEL = [
    "OTEL_SDK_DISABLED",
    "OTEL_TRACES_EXPORTER",
    "OTEL_SERVICE_NAME",
    "OTEL_RESOURCE_ATTRIBUTES",
    *setup.ENDPOINTS,
    *setup.PROTOCOLS,
]


@pytest.fixture(autouse=True)
def no_otel_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts from a process without OTEL_* settings."""
    for name in OTEL:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    ("settings", "on"),
    [
        ({}, False),
        ({"OTEL_SERVICE_NAME": "shop-aftersales"}, False),  # naming the service asks for nothing to be sent
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, True),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, True),
        ({"OTEL_TRACES_EXPORTER": "console"}, True),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_TRACES_EXPORTER": "none"}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_SDK_DISABLED": "true"}, False),
    ],
    ids=str,
)
def test_traces_are_on_only_when_an_endpoint_or_an_exporter_is_set_and_the_sdk_is_not_disabled(
    monkeypatch, settings, on
):
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    assert setup.wanted() is on


def test_the_service_is_aftersales_at_its_version_unless_otel_service_name_says_otherwise(monkeypatch):
    assert setup.resource().attributes["service.name"] == "aftersales"
    assert setup.resource().attributes["service.version"] == __version__
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=staging")
    monkeypatch.setenv("OTEL_SERVICE_NAME", "shop-aftersales")
    attributes = setup.resource().attributes
    assert attributes["service.name"] == "shop-aftersales"
    assert attributes["deployment.environment.name"] == "staging"


def test_otlp_is_the_default_exporter_and_console_writes_to_stderr_never_to_stdio_clients_stdout(monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")
    [otlp] = setup.exporters()
    assert isinstance(otlp, OTLPSpanExporter)
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "console,otlp")
    console, _ = setup.exporters()
    assert isinstance(console, ConsoleSpanExporter) and console.out is sys.stderr


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("OTEL_TRACES_EXPORTER", "zipkin", "OTEL_TRACES_EXPORTER names 'zipkin'"),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json", "The OTLP protocol 'http/json' is not one"),
    ],
)
def test_an_exporter_or_protocol_this_server_cannot_use_stops_the_start_naming_it(monkeypatch, name, value, said):
    monkeypatch.setenv(name, value)
    with pytest.raises(setup.TracesUnavailable, match=said):
        setup.exporters()


def test_settings_that_ask_for_traces_without_the_otel_extra_stop_the_start_naming_the_extra(monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)  # what an install without the extra has
    with pytest.raises(setup.TracesUnavailable) as refused:
        setup.start()
    assert str(refused.value).startswith("OTEL_EXPORTER_OTLP_ENDPOINT asks for traces, but the OpenTelemetry SDK")
    assert "pip install 'aftersales[otel]'" in str(refused.value)


class Collector(BaseHTTPRequestHandler):
    """An OTLP/HTTP receiver that keeps each body posted to it."""

    received: list[tuple[str, bytes]]

    def do_POST(self) -> None:
        self.received.append((self.path, self.rfile.read(int(self.headers["Content-Length"]))))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[tuple[str, list[tuple[str, bytes]]]]:
    """A local OTLP/HTTP receiver: its base URL, and what it received."""
    handler = type("Kept", (Collector,), {"received": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", handler.received
    server.shutdown()
    server.server_close()


def test_spans_go_over_otlp_http_to_the_endpoint_with_the_service_named(monkeypatch, collector):
    base, received = collector
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", base)
    monkeypatch.setenv("OTEL_SERVICE_NAME", "shop-aftersales")
    kept = InMemorySpanExporter()
    provider = TracerProvider(resource=setup.resource())
    provider.add_span_processor(SimpleSpanProcessor(kept))
    with provider.get_tracer("test").start_as_current_span("tools/call after_sales_query_ticket"):
        pass
    [exporter] = setup.exporters()
    assert exporter.export(kept.get_finished_spans()) == SpanExportResult.SUCCESS
    [(path, body)] = received
    assert path == "/v1/traces" and b"shop-aftersales" in body and b"tools/call after_sales_query_ticket" in body
    exporter.shutdown()
    provider.shutdown()

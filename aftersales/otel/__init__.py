"""OpenTelemetry traces (docs/production.md, "Traces"): off unless the standard OTEL_* settings ask for them."""

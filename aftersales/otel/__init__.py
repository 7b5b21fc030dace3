"""OpenTelemetry traces (README, "Traces"): off unless the standard OTEL_* settings ask for them."""

"""Trace entries in the tracer's shape, made by hand for tests of the call rules and patterns."""

from typing import Any

CREATE, ESTIMATE = "after_sales_create_ticket", "after_sales_estimate_refund"
LINE = {"order_id": "O-2026-001410", "line_no": 1, "kind": "return_and_refund"}


def entry(seq: int, tool: str, outcome: str = "ok", **extra: Any) -> dict[str, Any]:
    arguments = extra.pop("arguments", {})
    return {
        "seq": seq,
        "tool": tool,
        "outcome": outcome,
        "arguments": arguments,
        "resumed": False,
        "error_kind": None,
        "result": None,
        "error": None,
        **extra,
    }


def create(seq: int, key: str = "k-00000001", **extra: Any) -> dict[str, Any]:
    arguments = {**LINE, "idempotency_key": key, **extra.pop("arguments", {})}
    return entry(seq, CREATE, arguments=arguments, **extra)

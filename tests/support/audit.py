"""Audit records for tests: one plain call, changed only where a test says."""

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from aftersales.storage.audit import CallRecord

AT = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def call_record(**changes: Any) -> CallRecord:
    """A valid record of one successful after_sales_query_ticket call by support-bot at AT, with `changes`."""
    record = CallRecord(
        called_at=AT,
        caller="support-bot",
        tool="after_sales_query_ticket",
        arguments={},
        arguments_valid=True,
        outcome="ok",
        error_kind=None,
        input_round=1,
        replayed=False,
        latency_ms=1.0,
    )
    return replace(record, **changes)

"""The tool-call audit: records written in batches off the request path, purged after their retention."""

import json
import logging
import queue
import threading
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from aftersales.clock import now
from aftersales.storage.models import ToolCall

log = logging.getLogger(__name__)
SECRET_WORDS = ("token", "secret", "password", "authorization", "state")
TEXT_LIMIT = 120
PURGE_EVERY = timedelta(minutes=10)
BATCH_WINDOW = 0.25  # seconds a record may wait for company before it is written


@dataclass(frozen=True)
class CallRecord:
    """What the audit keeps about one tools/call."""

    called_at: datetime
    caller: str
    tool: str
    arguments: dict[str, Any]
    arguments_valid: bool
    outcome: str  # ok | tool_error | protocol_error | input_required
    error_kind: str | None
    input_round: int
    replayed: bool
    latency_ms: float


def redact(arguments: Any) -> dict[str, Any]:
    """Arguments fit to keep: secret-looking fields hidden, free text cut short."""
    if not isinstance(arguments, dict):
        return {"_unparsed": str(arguments)[:TEXT_LIMIT]}
    kept: dict[str, Any] = {}
    for name, value in arguments.items():
        if any(word in str(name).lower() for word in SECRET_WORDS):
            kept[name] = "[redacted]"
        elif isinstance(value, str) and len(value) > TEXT_LIMIT:
            kept[name] = value[: TEXT_LIMIT - 1] + "…"
        else:
            kept[name] = value
    return kept


class AuditLog:
    """Queue records and write them in batches on one background thread; calls never wait for the audit."""

    def __init__(self, session_factory: sessionmaker[Session], retention: timedelta) -> None:
        self._session_factory = session_factory
        self._retention = retention
        self._queue: queue.Queue[CallRecord | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._last_purge: datetime | None = None
        self._flushing = threading.Event()

    def record(self, entry: CallRecord) -> None:
        """Queue one record (never blocks the caller)."""
        self._ensure_started()
        self._queue.put(entry)

    def flush(self) -> None:
        """Wait until every queued record is written (tests, shutdown)."""
        if self._thread is not None:
            self._flushing.set()
            self._queue.join()
            self._flushing.clear()

    def close(self) -> None:
        """Write what is queued and stop the writer."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(30)
            self._thread = None

    def _ensure_started(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="aftersales-audit", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        """Take a record, gather what arrives in the next moment, write them in one transaction.

        A commit per call would cost more than the call itself; waiting up to BATCH_WINDOW groups them.
        """
        while True:
            first = self._queue.get()
            batch, deadline = [first], time.monotonic() + BATCH_WINDOW
            while first is not None and len(batch) < 500 and not self._flushing.is_set():
                try:
                    entry = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    break
                batch.append(entry)
                if entry is None:
                    break
            records = [entry for entry in batch if entry is not None]
            try:
                if records:
                    self._write(records)
            except SQLAlchemyError:
                # The audit must never take the service down; a lost batch is logged, not retried forever.
                log.exception("could not write %d audit records", len(records))
            finally:
                for _ in batch:
                    self._queue.task_done()
            if any(entry is None for entry in batch):
                return

    def _write(self, records: list[CallRecord]) -> None:
        rows = [
            {
                **asdict(r),
                "arguments": json.dumps(r.arguments, ensure_ascii=False, sort_keys=True, default=str),
            }
            for r in records
        ]
        with self._session_factory() as session, session.begin():
            session.execute(insert(ToolCall.__table__), rows)  # one executemany; no ORM objects per record
            moment = now()
            if self._last_purge is None or moment - self._last_purge > PURGE_EVERY:
                session.execute(delete(ToolCall).where(ToolCall.called_at < moment - self._retention))
                self._last_purge = moment

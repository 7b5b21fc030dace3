"""The tool-call audit: records written in batches off the request path, purged after their retention.

The writer never stops: whatever a record holds, it is made fit for both databases first, and a record the
database still refuses is logged, counted in `AuditLog.dropped` and skipped while the rest are written.
A record made in a world is written to that world's database (it is reset, forked and dropped with the world);
one whose world was dropped meanwhile is counted as dropped. Only the default world's audit is purged here.
"""

import json
import logging
import queue
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import islice
from typing import Any

from sqlalchemy import String
from sqlalchemy.orm import Session, sessionmaker

from aftersales.clock import now
from aftersales.domain.errors import ServiceUnavailable
from aftersales.domain.paging import CURSOR_LONGEST
from aftersales.storage.models import ToolCall
from aftersales.storage.unit_of_work import SqlUnitOfWork

log = logging.getLogger(__name__)
SECRET_WORDS = ("token", "secret", "password", "authorization", "state")
# A lookup's email or phone number is a customer's personal data: the audit keeps that a lookup was made, by whom and
# how it ended, never the contact details it held.
PERSONAL_WORDS = ("email", "phone")
HIDDEN_WORDS = SECRET_WORDS + PERSONAL_WORDS
TEXT_LIMIT = 120  # characters kept of any text inside the arguments
# Texts kept whole up to their schema's bound: a cut cursor would not show which page a caller asked for.
TEXT_LIMITS = {"cursor": CURSOR_LONGEST}
NESTING_LIMIT = 4  # containers deeper than this are not kept; the tools take flat arguments
ITEMS_LIMIT = 50  # items kept of any list or object inside the arguments
ARGUMENTS_LIMIT = 4000  # characters of stored arguments JSON; bounds a record whatever a caller sends
PURGE_EVERY = timedelta(minutes=10)
BATCH_WINDOW = 0.25  # seconds a record may wait for company before it is written
BATCH_SIZE = 500
# Each free-text column's width, read from the model so a migration that widens one is followed here.
WIDTHS = {c.name: c.type.length for c in ToolCall.__table__.columns if isinstance(c.type, String) and c.type.length}
# PostgreSQL refuses NUL in text and no driver can encode a lone surrogate (JSON may carry "\ud800").
UNSAFE = re.compile("[\x00\ud800-\udfff]")
SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class CallRecord:
    """What the audit keeps about one tools/call; `arguments` as received, made fit to keep by the writer."""

    called_at: datetime
    caller: str
    tool: str
    arguments: Any
    arguments_valid: bool
    outcome: str  # ok | tool_error | protocol_error | input_required
    error_kind: str | None
    input_round: int
    replayed: bool
    latency_ms: float
    world: str | None = None  # the world the call ran in; None for the default world


# Where a world's records go: its session factory, or None when the world is gone.
WorldSessions = Callable[[str], sessionmaker[Session] | None]


def redact(arguments: Any) -> dict[str, Any]:
    """Arguments fit to keep: secret and contact fields hidden at any depth, text cut short, size and depth bounded."""
    if not isinstance(arguments, dict):
        return {"_unparsed": _cut(str(arguments))}
    return _kept_object(arguments, 1)


def _kept(name: str, value: Any, depth: int) -> Any:
    if any(word in name.lower() for word in HIDDEN_WORDS):
        return "[redacted]"
    if isinstance(value, str):
        return _cut(value, TEXT_LIMITS.get(name, TEXT_LIMIT))
    if isinstance(value, dict | list) and depth >= NESTING_LIMIT:
        return "[nested]"
    if isinstance(value, dict):
        return _kept_object(value, depth + 1)
    if isinstance(value, list):
        return [_kept(name, item, depth + 1) for item in islice(value, ITEMS_LIMIT)]
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"[an integer of {value.bit_length()} bits]"  # Python will not even print one past 4300 digits
    if value is None or isinstance(value, bool | int | float):
        return value
    return _cut(str(value))


def _kept_object(value: dict[Any, Any], depth: int) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for name, item in islice(value.items(), ITEMS_LIMIT):
        key = _cut(str(name))
        kept[key] = _kept(key, item, depth)
    return kept


def _cut(text: str, limit: int = TEXT_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def clean_text(value: str, column: str) -> str:
    """`value` as `column` can hold it on both databases: NUL and lone surrogates replaced, cut to the width."""
    text, width = UNSAFE.sub("\ufffd", value), WIDTHS.get(column)
    return text if width is None else _cut(text, width)


def arguments_json(arguments: Any) -> str:
    """The redacted arguments as JSON text both databases accept; a lone surrogate stays as its JSON escape."""
    text = json.dumps(redact(arguments), ensure_ascii=False, sort_keys=True, default=str)
    if len(text) > ARGUMENTS_LIMIT:
        text = json.dumps({"_cut": _cut(text, ARGUMENTS_LIMIT)}, ensure_ascii=False)
    # json.dumps already escapes NUL as \u0000; a surrogate left raw would make the driver fail to encode the row.
    return SURROGATE.sub(lambda found: f"\\u{ord(found[0]):04x}", text)


def row_of(record: CallRecord) -> dict[str, Any]:
    """The tool_calls row for `record`, every text fit for its column."""
    return {
        "called_at": record.called_at,
        "caller": clean_text(str(record.caller), "caller"),
        "tool": clean_text(str(record.tool), "tool"),
        "arguments": arguments_json(record.arguments),
        "arguments_valid": bool(record.arguments_valid),
        "outcome": clean_text(str(record.outcome), "outcome"),
        "error_kind": None if record.error_kind is None else clean_text(str(record.error_kind), "error_kind"),
        "input_round": int(record.input_round),
        "replayed": bool(record.replayed),
        "latency_ms": float(record.latency_ms),
    }


class AuditLog:
    """Queue records and write them in batches on one background thread; calls never wait for the audit."""

    def __init__(
        self, session_factory: sessionmaker[Session], retention: timedelta, worlds: WorldSessions | None = None
    ) -> None:
        self._session_factory = session_factory
        self._retention = retention
        self._worlds = worlds
        self._queue: queue.Queue[CallRecord | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._last_purge: datetime | None = None
        self._hurry = threading.Event()  # set by flush() and close(): write what is queued without waiting
        self._dropped = 0

    @property
    def dropped(self) -> int:
        """Records lost since start: refused by the database even when written alone, or unwritable."""
        with self._lock:
            return self._dropped

    def record(self, entry: CallRecord) -> None:
        """Queue one record (never blocks the caller)."""
        self._ensure_started()
        self._queue.put(entry)

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until every queued record is written (tests, shutdown), at most `timeout` seconds."""
        if self._thread is not None:
            self._hurry.set()
            # Queue.join() has no timeout; waiting on its condition bounds a shutdown behind a stuck database.
            with self._queue.all_tasks_done:
                self._queue.all_tasks_done.wait_for(lambda: not self._queue.unfinished_tasks, timeout)
            self._hurry.clear()

    def close(self) -> None:
        """Write what is queued and stop the writer."""
        if self._thread is not None:
            self._queue.put(None)
            self._hurry.set()
            self._thread.join(30)
            self._thread = None

    def _ensure_started(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._hurry.clear()  # a writer started again after close() batches again
                self._thread = threading.Thread(target=self._run, name="aftersales-audit", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        """Take a record, gather what arrives in the next moment, write them in one transaction; never stop early.

        A commit per call would cost more than the call itself; waiting up to BATCH_WINDOW groups them.
        """
        while True:
            batch = self._gather()
            try:
                self._write([entry for entry in batch if entry is not None])
                self._purge_if_due()
            except Exception:
                # Every known failure is handled inside; this keeps an unforeseen one from silencing the audit.
                log.exception("the audit writer failed on a batch of %d records; it keeps running", len(batch))
            finally:
                for _ in batch:
                    self._queue.task_done()
            if None in batch:
                return

    def _gather(self) -> list[CallRecord | None]:
        first = self._queue.get()
        batch = [first]
        if first is not None and self._queue.qsize() < BATCH_SIZE - 1:
            # Sleep through the window instead of waiting on the queue: a record queued meanwhile wakes no thread,
            # which under load would cost a thread switch (and a GIL hand-over) on every call.
            self._hurry.wait(BATCH_WINDOW)
        while first is not None and len(batch) < BATCH_SIZE:
            try:
                entry = self._queue.get_nowait()
            except queue.Empty:
                break
            batch.append(entry)
            if entry is None:
                break
        return batch

    def _write(self, records: list[CallRecord]) -> None:
        """Write each world's records of the batch to that world's database."""
        by_world: dict[str | None, list[CallRecord]] = {}
        for record in records:
            by_world.setdefault(record.world, []).append(record)
        for world, group in by_world.items():
            factory = self._session_factory if world is None else self._world_sessions(world)
            if factory is None:
                with self._lock:
                    self._dropped += len(group)
                log.warning("%d audit records of world %.64r are lost: the world is gone", len(group), world)
                continue
            self._write_to(factory, group)

    def _world_sessions(self, world: str) -> sessionmaker[Session] | None:
        try:
            return self._worlds(world) if self._worlds is not None else None
        except Exception:  # the world's database could not even be found: like a refused write, counted
            log.exception("could not find the database of world %.64r", world)
            return None

    def _write_to(self, factory: sessionmaker[Session], records: list[CallRecord]) -> None:
        """Insert records in one statement; if that fails, row by row, so only a row the database refuses is lost."""
        rows = []
        for record in records:
            try:
                rows.append(row_of(record))
            except Exception:
                self._drop(1, "an audit record of tool %.64r could not be prepared", record.tool)
        if not rows:
            return
        try:
            self._insert(factory, rows)
            return
        except Exception:
            log.warning("a batch of %d audit records was refused; writing them one by one", len(rows), exc_info=True)
        for index, row in enumerate(rows):
            try:
                self._insert(factory, [row])
            except ServiceUnavailable:  # the database is not answering: writing the rest row by row cannot help
                self._drop(
                    len(rows) - index, "the database is unavailable; %d audit records are lost", len(rows) - index
                )
                return
            except Exception:
                self._drop(
                    1, "an audit record (%s, %s at %s) was refused", row["tool"], row["caller"], row["called_at"]
                )

    def _insert(self, factory: sessionmaker[Session], rows: list[dict[str, Any]]) -> None:
        with SqlUnitOfWork(factory) as uow:
            uow.tool_calls.add_many(rows)
            uow.commit()

    def _drop(self, count: int, message: str, *args: object) -> None:
        with self._lock:
            self._dropped += count
        log.error(message, *args, exc_info=True)

    def _purge_if_due(self) -> None:
        moment = now()
        if self._last_purge is not None and moment - self._last_purge <= PURGE_EVERY:
            return
        self._last_purge = moment  # a failed purge waits for the next period rather than slowing every batch
        try:
            with SqlUnitOfWork(self._session_factory) as uow:
                uow.tool_calls.purge_before(moment - self._retention)
                uow.commit()
        except Exception:
            log.exception("could not purge audit records older than %s", self._retention)

"""Writers in one process: on SQLite they queue on a lock before BEGIN IMMEDIATE instead of in SQLite's busy handler."""

import threading
from datetime import UTC, datetime

import pytest

from aftersales.domain.errors import ServiceUnavailable
from aftersales.storage import unit_of_work
from aftersales.storage.database import write_lock


def test_a_sqlite_writer_holds_the_process_write_lock_until_its_unit_ends_and_readers_never_take_it(app, backend):
    lock = write_lock(app.engine)
    if backend == "postgresql":
        assert lock is None  # row locks there; nothing to queue on
        return
    assert lock is not None

    def free_elsewhere() -> bool:
        seen: list[bool] = []

        def probe() -> None:
            taken = lock.acquire(blocking=False)
            seen.append(taken)
            if taken:
                lock.release()

        thread = threading.Thread(target=probe)
        thread.start()
        thread.join()
        return seen[0]

    with app.uow() as reader:
        reader.tickets.opened_since("C-00001", datetime(2000, 1, 1, tzinfo=UTC))
        assert free_elsewhere()
    with app.uow(write=True):
        assert not free_elsewhere()
    assert free_elsewhere()
    with pytest.raises(RuntimeError), app.uow(write=True):
        raise RuntimeError("a failing use case")
    assert free_elsewhere()  # released however the unit ends


def test_a_sqlite_writer_that_waits_too_long_for_the_lock_is_told_the_service_is_unavailable(app, backend, monkeypatch):
    if backend == "postgresql":
        assert write_lock(app.engine) is None  # PostgreSQL writers do not queue in the process
        return
    monkeypatch.setattr(unit_of_work, "WRITE_LOCK_TIMEOUT", 0.05)
    holder_in, release = threading.Event(), threading.Event()

    def hold() -> None:
        with app.uow(write=True):
            holder_in.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    holder_in.wait(10)
    try:
        with pytest.raises(ServiceUnavailable), app.uow(write=True):
            pass
    finally:
        release.set()
        holder.join()
    with app.uow(write=True):
        pass  # the lock is free again

"""SIGTERM as an exit the program sees, so its `finally` blocks run (a server's last audit batch, a run's folder)."""

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


@contextmanager
def sigterm_exits(status: int = 0) -> Iterator[None]:
    """Turn SIGTERM into SystemExit(status) inside the block.

    SIGTERM's default action ends the process where it stands (uvicorn, too, re-raises it after its own graceful
    shutdown), skipping every clean-up.
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers (tests may call the CLI from elsewhere)
        return

    def stop(_signum: int, _frame: FrameType | None) -> None:
        raise SystemExit(status)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)

"""Jobs run a few at a time on threads, stopped at once when the run is interrupted (Ctrl-C, SIGTERM)."""

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

J = TypeVar("J")
R = TypeVar("R")


def run_all(
    work: Callable[[J], R], jobs: Iterable[J], parallel: int, stop: Callable[[], None] = lambda: None
) -> list[R]:
    """`work` of every job, `parallel` at a time, in the jobs' order.

    Interrupted (KeyboardInterrupt, SystemExit), no job that has not started starts, `stop` ends what is running
    (an agent's processes), and the threads are waited for before the interruption goes on: the caller then closes
    the worlds and removes its folder with no job still at work in them.
    """
    pool = ThreadPoolExecutor(max_workers=max(1, parallel))
    try:
        return list(pool.map(work, jobs))
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        stop()
        raise
    finally:
        pool.shutdown(wait=True)

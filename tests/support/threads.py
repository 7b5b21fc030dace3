"""Running work on many threads at the same moment, to race them against each other."""

import threading
import time
from collections.abc import Callable
from typing import Any

JOIN_TIMEOUT = 60  # seconds for all the threads together


def run_concurrently(count: int, work: Callable[[int], Any]) -> list[Any]:
    """Start `count` threads at once, each calling `work(index)`; return each result or the exception it raised."""
    barrier = threading.Barrier(count)
    results: list[Any] = [None] * count

    def run(index: int) -> None:
        barrier.wait()
        try:
            results[index] = work(index)
        except Exception as error:  # collected for the assertions
            results[index] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + JOIN_TIMEOUT
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    stuck = sum(thread.is_alive() for thread in threads)
    assert not stuck, f"{stuck} of {count} threads were still running after {JOIN_TIMEOUT} seconds"
    return results

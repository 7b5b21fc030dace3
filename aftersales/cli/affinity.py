"""`serve --pin-cpus`: every thread of a server process on one CPU, so they stop passing the GIL across cores.

os.sched_setaffinity(0, ...) moves only the calling thread, and a new thread inherits the mask of the thread that
starts it, so `pin` sets the mask of every task listed in /proc/self/task.
"""

import os
import sys
from contextlib import suppress
from pathlib import Path

from aftersales.cli.failures import StartupError

TASKS = Path("/proc/self/task")


def check_supported() -> None:
    """Refuse pinning, in one line, on a platform that cannot set a thread's CPUs (macOS has no sched_setaffinity)."""
    if not hasattr(os, "sched_setaffinity") or not TASKS.is_dir():
        raise StartupError(
            f"--pin-cpus (AFTERSALES_PIN_CPUS) is not available on this platform ({sys.platform}): pinning needs "
            "os.sched_setaffinity and /proc/self/task (Linux). Drop --pin-cpus or set AFTERSALES_PIN_CPUS=false."
        )


def allowed_cpus() -> list[int]:
    """The CPUs this process may run on, in order (a container's cpuset, not necessarily 0..n-1)."""
    return sorted(os.sched_getaffinity(0))


def pin(cpu: int) -> None:
    """Put every thread of this process, and so every thread they start later, on `cpu` alone."""
    confine({cpu})


def confine(cpus: set[int]) -> None:
    """Let every thread of this process, and every thread they start later, run on `cpus` only."""
    done: set[int] = set()
    # A thread an unpinned thread starts while we go through the list inherits the old mask: look again until a
    # pass finds no thread we have not pinned.
    while tids := _tasks() - done:
        for tid in tids:
            with suppress(ProcessLookupError):  # the thread exited meanwhile
                os.sched_setaffinity(tid, cpus)
        done |= tids


def _tasks() -> set[int]:
    """The thread ids of this process now."""
    return {int(entry.name) for entry in TASKS.iterdir()}

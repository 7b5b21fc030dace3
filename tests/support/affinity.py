"""The CPUs each thread of a process may run on, read from /proc."""

from pathlib import Path


def cpu_list(text: str) -> frozenset[int]:
    """The CPUs of a kernel CPU list such as `0-2,5`."""
    cpus: set[int] = set()
    for part in text.split(","):
        first, _, last = part.partition("-")
        cpus.update(range(int(first), int(last or first) + 1))
    return frozenset(cpus)


def thread_cpus(pid: int) -> dict[int, frozenset[int]]:
    """Each live thread of process `pid` and the CPUs it may run on (`Cpus_allowed_list` in its status)."""
    found = {}
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        try:
            text = status.read_text()
        except OSError:  # a thread that ended while we looked
            continue
        line = next(line for line in text.splitlines() if line.startswith("Cpus_allowed_list:"))
        found[int(status.parent.name)] = cpu_list(line.split(":", 1)[1].strip())
    return found

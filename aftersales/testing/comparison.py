"""When two trajectories are "the same": what differs between two runs of one trial by design is left out.

Two runs of one trial, with the same agent and the same customer, write trajectories that still differ in a few
places, none of which is behaviour: the wall clock, the latencies, and the ids a run makes afresh. `comparable`
is a trajectory with those taken out, as canonical JSON lines; two trajectories are the same (byte for byte, as
a replayed run must be) when their comparable forms are equal bytes. Precisely:

- dropped: `wall_at` and `wall_started_at` (wall-clock times) and `latency_ms`, in every entry;
- per-trial ids, in every string anywhere in an entry (keys untouched), replaced by `<kind-n>`, numbered by first
  appearance in the trajectory, so an id used twice is still the same id: world ids (`w-` and 8 hex digits),
  UUIDs (quote handles, and ids an agent makes, such as idempotency keys), ticket numbers (`T-YYYY-NNNN`, either
  case), and caller tokens (signed tokens, `eyJ…`). Order and customer ids are the task's, and kept;
- by field, whatever their form: the values of `idempotency_key` (an agent names its keys as it likes) and
  `request_id` (JSON-RPC ids are the client's), numbered the same way;
- everything else is kept as written: the world's clock (`at`, `started_at`), texts, the facts of each turn,
  arguments, results, form rounds, the order of entries.

The same normalisation of ids (`Ids`) is what replay uses to tell whether the agent said what it said then.
"""

import json
import re
from collections.abc import Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

DROPPED = frozenset({"wall_at", "wall_started_at", "latency_ms"})  # wall clock and latency: never behaviour
BY_FIELD = {"idempotency_key": "key", "request_id": "request"}  # field -> kind, the value replaced whatever its form
PATTERNS = (  # kind, pattern: ids that differ from one trial (or one run) to the next
    ("world", re.compile(r"\bw-[0-9a-f]{8}\b")),
    ("uuid", re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")),
    ("ticket", re.compile(r"\b[Tt]-\d{4}-\d{4,}\b")),
    ("token", re.compile(r"\beyJ[\w-]*\.[\w.-]+")),
)


class Ids:
    """Replaces per-trial ids with `<kind-n>`, numbered by first appearance; one instance per trajectory."""

    def __init__(self) -> None:
        self._seen: dict[tuple[str, str], str] = {}

    def placeholder(self, kind: str, value: str) -> str:
        """The id's stand-in: the same for the same id, the next number of its kind for a new one."""
        key = (kind, value)
        if key not in self._seen:
            count = sum(1 for seen_kind, _ in self._seen if seen_kind == kind)
            self._seen[key] = f"<{kind}-{count + 1}>"
        return self._seen[key]

    def text(self, text: str) -> str:
        """The text with every per-trial id replaced."""
        for kind, pattern in PATTERNS:
            text = pattern.sub(partial(self._found, kind), text)
        return text

    def _found(self, kind: str, found: re.Match[str]) -> str:
        return self.placeholder(kind, found.group())

    def value(self, value: Any) -> Any:
        """A JSON value with the ids in its strings replaced (and the by-field ids of its objects)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(item) for item in value]
        if isinstance(value, dict):
            return {key: self._field(key, item) for key, item in value.items()}
        return value

    def _field(self, key: str, item: Any) -> Any:
        if key in BY_FIELD and item is not None and not isinstance(item, dict | list):
            return self.placeholder(BY_FIELD[key], json.dumps(item))
        return self.value(item)


def comparable(entries: Iterable[Mapping[str, Any]]) -> bytes:
    """A trajectory without its wall clock, latencies and per-trial ids, as canonical JSON lines."""
    ids = Ids()
    lines = []
    for entry in entries:
        kept = {key: value for key, value in entry.items() if key not in DROPPED}
        lines.append(json.dumps(ids.value(kept), ensure_ascii=False, sort_keys=True) + "\n")
    return "".join(lines).encode("utf-8")


def read(path: Path) -> list[dict[str, Any]]:
    """The entries of a trajectory file (JSON lines)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def difference(left: Iterable[Mapping[str, Any]], right: Iterable[Mapping[str, Any]]) -> str | None:
    """None when the two trajectories are the same; else the first line that differs, both ways, for a person."""
    ours, theirs = comparable(left).decode().splitlines(), comparable(right).decode().splitlines()
    for number, (one, other) in enumerate(zip(ours, theirs, strict=False), 1):
        if one != other:
            return f"line {number} differs:\n  {one}\n  {other}"
    if len(ours) != len(theirs):
        return f"one trajectory has {len(ours)} lines, the other {len(theirs)}"
    return None

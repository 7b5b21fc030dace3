"""Differences between two snapshots, row by row and field by field, as JSON and as text for a person.

The JSON (format `aftersales-world-diff/1`) lists only tables that differ:
  {"tables": {"tickets": {"added":   [{"key": {"id": "T-2026-0401"}, "row": {...every column...}}],
                          "removed": [{"key": {...}, "row": {...}}],
                          "changed": [{"key": {...}, "fields": {"status": {"before": "approved",
                                                                           "after": "cancelled"}}}]}},
   "summary": {"tickets": {"added": 1, "removed": 0, "changed": 0}}, "identical": false, ...}
so an expected outcome can be written as a partial diff of the same shape, with matchers in place of values
("tickets: one added row whose kind is X and status under_review; no other table in the summary").
"""

from typing import Any

from aftersales.worlds.snapshot import digest

FORMAT = "aftersales-world-diff/1"
SHOWN = 60  # characters of a value in the text form


def diff(
    before: dict[str, Any],
    after: dict[str, Any],
    before_label: str,
    after_label: str,
    before_hash: str | None = None,
    after_hash: str | None = None,
) -> dict[str, Any]:
    """What changed from `before` to `after` (the hashes: their digests, when the caller has them already)."""
    tables: dict[str, Any] = {}
    for name in sorted(set(before["tables"]) | set(after["tables"])):
        if before["tables"].get(name) == after["tables"].get(name):  # most tables of an episode are untouched
            continue
        key = after["keys"].get(name) or before["keys"][name]
        old, new = _indexed(before["tables"].get(name, []), key), _indexed(after["tables"].get(name, []), key)
        added = [{"key": _key(k, key), "row": new[k]} for k in sorted(new.keys() - old.keys(), key=_sortable)]
        removed = [{"key": _key(k, key), "row": old[k]} for k in sorted(old.keys() - new.keys(), key=_sortable)]
        changed = []
        # A row a snapshot took from the other (snapshot.canonical reuses unchanged rows) is the same object.
        for k in sorted((k for k in old.keys() & new.keys() if old[k] is not new[k]), key=_sortable):
            fields = _fields(old[k], new[k])
            if fields:
                changed.append({"key": _key(k, key), "fields": fields})
        if added or removed or changed:
            tables[name] = {"added": added, "removed": removed, "changed": changed}
    summary = {name: {kind: len(rows) for kind, rows in entry.items()} for name, entry in tables.items()}
    return {
        "format": FORMAT,
        "before": {"label": before_label, "hash": before_hash or digest(before)},
        "after": {"label": after_label, "hash": after_hash or digest(after)},
        "identical": not tables,
        "summary": summary,
        "tables": tables,
    }


def describe(result: dict[str, Any]) -> str:
    """The diff for a person: one line per table, then one per row."""
    before, after = result["before"], result["after"]
    lines = [f"{after['label']} against {before['label']}: " + ("identical" if result["identical"] else "")]
    if not result["identical"]:
        lines[0] += ", ".join(f"{name} {_counts(counts)}" for name, counts in result["summary"].items())
    lines.append(f"  hashes {before['hash']} -> {after['hash']}")
    for name, entry in result["tables"].items():
        lines.append(f"{name}:")
        for item in entry["added"]:
            lines.append(f"  + {_shown_key(item['key'])}  {_pairs(item['row'], item['key'])}")
        for item in entry["removed"]:
            lines.append(f"  - {_shown_key(item['key'])}  {_pairs(item['row'], item['key'])}")
        for item in entry["changed"]:
            changes = "; ".join(
                f"{field}: {_short(change['before'])} -> {_short(change['after'])}"
                for field, change in item["fields"].items()
            )
            lines.append(f"  ~ {_shown_key(item['key'])}  {changes}")
    return "\n".join(lines)


def _indexed(rows: list[dict[str, Any]], key: list[str]) -> dict[tuple[Any, ...], dict[str, Any]]:
    return {tuple(row.get(column) for column in key): row for row in rows}


def _sortable(values: tuple[Any, ...]) -> tuple[Any, ...]:
    """Keys in natural order (years and sequence numbers as numbers), never comparing None with a value."""
    return tuple((value is not None, type(value).__name__, value if value is not None else 0) for value in values)


def _key(values: tuple[Any, ...], key: list[str]) -> dict[str, Any]:
    return dict(zip(key, values, strict=True))


def _fields(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    return {
        column: {"before": old.get(column), "after": new.get(column)}
        for column in sorted(old.keys() | new.keys())
        if old.get(column) != new.get(column)
    }


def _counts(counts: dict[str, int]) -> str:
    return "(" + ", ".join(f"{number} {kind}" for kind, number in counts.items() if number) + ")"


def _shown_key(key: dict[str, Any]) -> str:
    return "/".join(str(value) for value in key.values())


def _pairs(row: dict[str, Any], key: dict[str, Any]) -> str:
    return ", ".join(f"{column}={_short(value)}" for column, value in row.items() if column not in key)


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value) if not isinstance(value, dict | list) else str(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"

"""The dataset file: one JSON document, one row per line so diffs stay readable."""

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from aftersales.clock import as_utc
from aftersales.seeding.generator import World

FORMAT = "aftersales-dataset/1"


def _encode(value: Any) -> Any:
    """JSON for datetimes: ISO 8601 UTC."""
    if isinstance(value, datetime):
        return as_utc(value).isoformat()
    raise TypeError(f"cannot encode {type(value).__name__}")


def _dump(value: Any) -> str:
    """One value as JSON, its keys sorted and its text unescaped, so the file reads and diffs well."""
    return json.dumps(value, default=_encode, ensure_ascii=False, sort_keys=True)


def write(world: World, path: Path) -> None:
    """Write a world to `path`, deterministically."""
    out = [
        "{",
        f'"format": {_dump(FORMAT)},',
        f'"anchor": {_dump(world.anchor)},',
        f'"stories": {_dump(world.stories)},',
    ]
    out.append('"tables": {')
    names = list(world.tables)
    for index, name in enumerate(names):
        rows = world.tables[name]
        out.append(f"{_dump(name)}: [")
        out.extend(_dump(row) + ("," if i < len(rows) - 1 else "") for i, row in enumerate(rows))
        out.append("]" + ("," if index < len(names) - 1 else ""))
    out.append("}}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def read(path: Path) -> World:
    """Read a dataset file back into a world (times as aware datetimes)."""
    document = json.loads(path.read_text(encoding="utf-8"))
    if document.get("format") != FORMAT:
        raise ValueError(f"{path} is not an {FORMAT} file")
    tables = {name: [_decode_row(row) for row in rows] for name, rows in document["tables"].items()}
    return World(anchor=datetime.fromisoformat(document["anchor"]), tables=tables, stories=document["stories"])


def _decode_row(row: dict[str, Any]) -> dict[str, Any]:
    """Turn ISO strings in *_at columns back into datetimes."""
    return {k: datetime.fromisoformat(v) if k.endswith("_at") and isinstance(v, str) else v for k, v in row.items()}

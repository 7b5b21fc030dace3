"""Snapshots, hashes and diffs of worlds: what the CLI and the admin API show of a world's state."""

import json
from pathlib import Path
from typing import Any

from aftersales.worlds.diff import diff
from aftersales.worlds.errors import WorldRequestError
from aftersales.worlds.model import Place, World
from aftersales.worlds.service import ID_PATTERN, Worlds
from aftersales.worlds.snapshot import FORMAT, canonical, digest, table_names
from aftersales.worlds.storage.rows import read_tables


def snapshot(worlds: Worlds, world_id: str, audit: bool = False) -> dict[str, Any]:
    """The canonical snapshot of a world as it is now."""
    world = worlds.get(world_id)
    return _read(worlds, world.location, world, audit) | {"world": world.id}


def world_hash(worlds: Worlds, world_id: str, audit: bool = False) -> str:
    """The hash of a world's canonical snapshot."""
    return digest(snapshot(worlds, world_id, audit))


def compare(worlds: Worlds, world_id: str, against: str = "source", audit: bool = False) -> dict[str, Any]:
    """A world against its source (its state at creation), another world, or a snapshot file."""
    world = worlds.get(world_id)
    if against == "source":
        before = _read(worlds, world.origin, world, audit)
        label = f"its source ({world.source if world.source_kind != 'world' else 'world ' + world.source} as copied)"
    elif Path(against).is_file():
        before, label = read_file(Path(against)), against
        audit = bool(before.get("audit"))
    elif ID_PATTERN.match(against):
        before, label = snapshot(worlds, against, audit), f"world {against}"
    else:
        raise WorldRequestError(
            f"--against {against!r} is neither a world nor a file.",
            "A world is compared with `source` (its state at creation), another world's id, or a snapshot file.",
            "Check the id with `aftersales world list`, or the path of the file from `world snapshot --out`.",
        )
    return diff(before, snapshot(worlds, world_id, audit), label, f"world {world.id}")


def read_file(path: Path) -> dict[str, Any]:
    """A snapshot written by `world snapshot --out`."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as problem:
        raise WorldRequestError(
            f"{path} could not be read as JSON ({problem}).",
            f"Snapshot files are written by `aftersales world snapshot ID --out FILE` ({FORMAT}).",
            "Write the snapshot again.",
        ) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise WorldRequestError(
            f"{path} is not a world snapshot.",
            f"Snapshot files are written by `aftersales world snapshot ID --out FILE` ({FORMAT}).",
            "Point --against at such a file.",
        )
    return document


def _read(worlds: Worlds, place: Place, world: World, audit: bool) -> dict[str, Any]:
    with worlds.places.reading(place) as engine:
        rows = read_tables(engine, table_names(audit))
    return canonical(rows, world.anchor_day, audit)

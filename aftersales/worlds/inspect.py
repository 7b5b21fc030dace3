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
    """A world against its source (its state at creation), another world, or a snapshot file (the CLI's choice)."""
    if against == "source":
        return against_source(worlds, world_id, audit)
    if Path(against).is_file():
        return against_snapshot(worlds, world_id, read_file(Path(against)), against)
    if ID_PATTERN.match(against):
        return against_world(worlds, world_id, against, audit)
    raise WorldRequestError(
        f"--against {against!r} is neither a world nor a file.",
        "A world is compared with `source` (its state at creation), another world's id, or a snapshot file.",
        "Check the id with `aftersales world list`, or the path of the file from `world snapshot --out`.",
    )


def against_source(worlds: Worlds, world_id: str, audit: bool = False) -> dict[str, Any]:
    """A world against its state at creation."""
    world = worlds.get(world_id)
    before = _read(worlds, world.origin, world, audit)
    label = f"its source ({world.source if world.source_kind != 'world' else 'world ' + world.source} as copied)"
    return diff(before, snapshot(worlds, world_id, audit), label, f"world {world.id}")


def against_world(worlds: Worlds, world_id: str, other_id: str, audit: bool = False) -> dict[str, Any]:
    """A world against another world as it is now."""
    before = snapshot(worlds, other_id, audit)
    return diff(before, snapshot(worlds, world_id, audit), f"world {other_id}", f"world {world_id}")


def against_snapshot(worlds: Worlds, world_id: str, before: dict[str, Any], label: str) -> dict[str, Any]:
    """A world against a snapshot (checked with `checked_snapshot`); the audit is compared when the snapshot has it."""
    after = snapshot(worlds, world_id, bool(before.get("audit")))
    return diff(before, after, label, f"world {world_id}")


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
    return checked_snapshot(document, str(path))


def checked_snapshot(document: object, where: str) -> dict[str, Any]:
    """`document` if it is a world snapshot, else a three-part refusal naming `where` it came from."""
    if not (
        isinstance(document, dict) and document.get("format") == FORMAT and isinstance(document.get("tables"), dict)
    ):
        raise WorldRequestError(
            f"{where} is not a world snapshot.",
            f'A snapshot is the JSON `aftersales world snapshot ID` prints, with "format": "{FORMAT}".',
            "Send such a snapshot, or compare with `source` or another world's id instead.",
        )
    return document


def _read(worlds: Worlds, place: Place, world: World, audit: bool) -> dict[str, Any]:
    with worlds.places.reading(place) as engine:
        rows = read_tables(engine, table_names(audit))
    return canonical(rows, world.anchor_day, audit)

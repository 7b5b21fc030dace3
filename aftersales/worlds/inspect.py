"""Snapshots, hashes and diffs of worlds: what the CLI and the admin API show of a world's state."""

import json
import threading
from collections import OrderedDict
from dataclasses import replace
from pathlib import Path
from typing import Any

from aftersales.worlds.diff import diff
from aftersales.worlds.model import Place, World
from aftersales.worlds.service import ID_PATTERN, Worlds
from aftersales.worlds.snapshot import FORMAT, GENERATED, Known, canonical, digest, known, table_names
from aftersales.worlds.storage.rows import Printed, read_tables
from aftersales.worlds.world_errors import WorldRequestError

Tables = tuple[str, ...] | None  # the tables to compare, or None for all of them


def snapshot(worlds: Worlds, world_id: str, audit: bool = False, tables: Tables = None) -> dict[str, Any]:
    """The canonical snapshot of a world as it is now (of some of its tables, when named)."""
    world = worlds.get(world_id)
    return _read(worlds, world.location, world, audit, tables) | {"world": world.id}


def checked_tables(names: list[str] | None, audit: bool) -> Tables:
    """The tables a caller named, each one a snapshot has (None: all of them)."""
    if not names:
        return None
    known = table_names(audit)
    unknown = [name for name in names if name not in known]
    if unknown:
        raise WorldRequestError(
            f"The tables {', '.join(repr(name) for name in unknown)} are not in a snapshot.",
            f"A snapshot holds {', '.join(known)}"
            + ("." if audit else ", and tool_calls when the audit is asked for."),
            "Name tables from that list, or leave the list out to compare them all.",
        )
    return tuple(sorted(set(names)))


def world_hash(worlds: Worlds, world_id: str, audit: bool = False) -> str:
    """The hash of a world's canonical snapshot."""
    return digest(snapshot(worlds, world_id, audit))


def compare(
    worlds: Worlds, world_id: str, against: str = "source", audit: bool = False, tables: Tables = None
) -> dict[str, Any]:
    """A world against its source (its state at creation), another world, or a snapshot file (the CLI's choice)."""
    if against == "source":
        return against_source(worlds, world_id, audit, tables)
    if Path(against).is_file():
        return against_snapshot(worlds, world_id, read_file(Path(against)), against)
    if ID_PATTERN.match(against):
        return against_world(worlds, world_id, against, audit, tables)
    raise WorldRequestError(
        f"--against {against!r} is neither a world nor a file.",
        "A world is compared with `source` (its state at creation), another world's id, or a snapshot file.",
        "Check the id with `aftersales world list`, or the path of the file from `world snapshot --out`.",
    )


def against_source(worlds: Worlds, world_id: str, audit: bool = False, tables: Tables = None) -> dict[str, Any]:
    """A world against its state at creation."""
    world = worlds.get(world_id)
    before, before_hash = _origin(worlds, world, audit, tables)
    label = f"its source ({world.source if world.source_kind != 'world' else 'world ' + world.source} as copied)"
    after = _read(worlds, world.location, world, audit, tables, before) | {"world": world.id}
    return diff(before.snapshot, after, label, f"world {world.id}", before_hash, digest(after, before))


def against_world(
    worlds: Worlds, world_id: str, other_id: str, audit: bool = False, tables: Tables = None
) -> dict[str, Any]:
    """A world against another world as it is now."""
    before = snapshot(worlds, other_id, audit, tables)
    return diff(before, snapshot(worlds, world_id, audit, tables), f"world {other_id}", f"world {world_id}")


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


# Snapshots of origins, which never change once made (templates and a fork's copy of its source are sealed):
# diffs against a world's source read only the world. Keyed by the origin's database, and for a fork's own copy
# by the world's creation time too, since a world made again under the same id has an origin of its own.
_ORIGINS: OrderedDict[tuple[str, str, str, bool, Tables], tuple[Known, str]] = OrderedDict()
_ORIGINS_KEPT = 8
_ORIGINS_LOCK = threading.Lock()


def _origin(worlds: Worlds, world: World, audit: bool, tables: Tables) -> tuple[Known, str]:
    """The snapshot of the world's origin and its digest, both kept for the next diff against it."""
    made = world.created_at.isoformat() if world.origin_owned else ""
    key = (worlds.places.url(world.origin), made, world.anchor_day.isoformat(), audit, tables)
    with _ORIGINS_LOCK:
        known = _ORIGINS.get(key)
        if known is not None:
            _ORIGINS.move_to_end(key)
            return known
    origin = _known(worlds, world.origin, world, audit, tables)
    read = origin, digest(origin.snapshot, origin)
    with _ORIGINS_LOCK:
        _ORIGINS[key] = read
        while len(_ORIGINS) > _ORIGINS_KEPT:
            _ORIGINS.popitem(last=False)
    return read


def _read(
    worlds: Worlds, place: Place, world: World, audit: bool, tables: Tables = None, before: Known | None = None
) -> dict[str, Any]:
    """The canonical snapshot of a place (reusing `before`'s unchanged tables), cut to the tables asked for."""
    read = _rows(worlds, place, audit, tables, before)
    rows = {name: table.rows for name, table in read.items()}
    return _cut(canonical(rows, world.anchor_day, audit, before), tables)


def _known(worlds: Worlds, place: Place, world: World, audit: bool, tables: Tables) -> Known:
    """A place's snapshot kept with what later snapshots of its world reuse."""
    read = _rows(worlds, place, audit, tables)
    rows, prints = (
        {name: table.rows for name, table in read.items()},
        {name: table.print for name, table in read.items()},
    )
    kept = known(rows, world.anchor_day, audit, prints)
    counted = {name: table.changes for name, table in read.items()}
    return replace(kept, snapshot=_cut(kept.snapshot, tables), changes=counted)


def _rows(worlds: Worlds, place: Place, audit: bool, tables: Tables, before: Known | None = None) -> dict[str, Printed]:
    """The place's tables as read; those whose print is `before`'s are `before`'s rows, not read again."""
    known = (
        {name: Printed(before.prints[name], before.rows[name], before.changes.get(name)) for name in before.prints}
        if before
        else None
    )
    names = table_names(audit)
    if tables is not None:  # the tables asked for, and those whose ids name handles the others mention
        names = [name for name in names if name in tables or name in GENERATED]
    with worlds.places.reading(place) as engine:
        return read_tables(engine, names, known)


def _cut(whole: dict[str, Any], tables: Tables) -> dict[str, Any]:
    if tables is not None:
        whole["tables"] = {name: rows for name, rows in whole["tables"].items() if name in tables}
        whole["keys"] = {name: key for name, key in whole["keys"].items() if name in tables}
    return whole

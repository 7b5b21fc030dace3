"""Canonical snapshots of a world's business tables, and their hash.

A snapshot is JSON that two identical episodes on identical worlds produce byte for byte, on SQLite and on
PostgreSQL alike: values are read through the same types (booleans, integers, aware UTC datetimes), then
- timestamps are written relative to the world's anchor day (00:00 UTC of its clock at creation), as
  `day+1T09:30:00Z`; so are ISO timestamps inside JSON kept in columns;
- generated ids are named by order of appearance: quote handles become `quote#1`, `quote#2`… everywhere they
  occur, JSON in columns included; surrogate row numbers (ticket events, idempotency records, audit rows) are
  left out, and events are keyed by their place in the ticket's timeline (`seq`);
- values that come from timing (an audit row's latency) are left out;
- JSON held in columns (idempotency arguments and results, audit arguments) is parsed and normalised too.
The audit (`tool_calls`) is left out unless asked for: what an episode did to the data is the state; how it was
called is the trace's business, and the audit of a run holds timings that never repeat.
"""

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from hashlib import sha256
from typing import Any

from aftersales.clock import as_utc
from aftersales.worlds.model import iso_exact
from aftersales.worlds.storage.rows import business_tables

FORMAT = "aftersales-world-snapshot/1"
AUDIT = "tool_calls"
# Rows keyed by something other than their primary key.
KEYS = {"ticket_events": ("ticket_id", "seq"), "idempotency_records": ("caller", "tool", "key"), AUDIT: ("seq",)}
# Row numbers the database hands out: replaced by a sequence (within a group) in this order.
SEQUENCES = {"ticket_events": (("ticket_id",), ("occurred_at", "id")), AUDIT: ((), ("called_at", "id"))}
# Left out too: a payout page's token digest and its sealed account (ciphertext, new each time; never shown).
LEFT_OUT = {
    "ticket_events": ("id",),
    "idempotency_records": ("id",),
    AUDIT: ("id", "latency_ms"),
    "payout_requests": ("token_digest", "sealed"),
}
JSON_COLUMNS = {"idempotency_records": ("arguments", "result"), AUDIT: ("arguments",)}
# Random handles, named by order of appearance; the order ends in the raw id only to break exact ties.
GENERATED = {
    "quotes": ("quote", ("created_at", "expires_at", "owner", "order_id", "line_no", "quantity", "id")),
    "payout_requests": ("payout", ("created_at", "caller", "idempotency_key", "id")),
}
ISO_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$")


def table_names(audit: bool) -> list[str]:
    """The tables a snapshot holds, in foreign-key order."""
    return [name for name in business_tables() if audit or name != AUDIT]


Made = dict[tuple[Any, ...], tuple[dict[str, Any], tuple[Any, ...]]]
Placed = dict[tuple[Any, ...], tuple[Any, ...]]


@dataclass(frozen=True)
class Known:
    """A snapshot with what it was made from, so a later snapshot of the same world reuses its unchanged tables."""

    rows: dict[str, list[dict[str, Any]]]  # as read
    names: dict[str, str]  # generated id -> its name
    texts: dict[str, frozenset[str]]  # every text value of each table (inside its JSON columns too)
    snapshot: dict[str, Any]
    json: dict[str, str] = field(default_factory=dict)  # each table's canonical JSON, once it has been written
    prints: dict[str, str] = field(default_factory=dict)  # each table's print as read (storage.rows.read_tables)
    changes: dict[str, int | None] = field(default_factory=dict)  # each table's write counter as read, if kept
    # Of each table, every row as read (its values, `seq` included) -> its canonical row and sort key.
    made: dict[str, Made] = field(default_factory=dict)
    placed: dict[str, Placed] = field(default_factory=dict)  # of sequenced tables, row values -> place in order
    texts_of_rows: dict[int, str] = field(default_factory=dict)  # id of a canonical row -> its JSON, once written

    def row_texts(self) -> dict[int, str]:
        """The canonical JSON of every row of the snapshot, by the row's id (the rows live as long as this does)."""
        if not self.texts_of_rows:
            self.texts_of_rows.update(
                (id(row), dumps(row)) for rows in self.snapshot["tables"].values() for row in rows
            )
        return self.texts_of_rows

    def table_json(self, name: str) -> str:
        """The canonical JSON of one of the snapshot's tables, written once."""
        text = self.json.get(name)
        if text is None:
            text = self.json[name] = dumps(self.snapshot["tables"][name])
        return text


def known(
    rows: dict[str, list[dict[str, Any]]], origin: datetime, audit: bool, prints: dict[str, str] | None = None
) -> Known:
    """The snapshot of `rows`, kept with what a later snapshot needs to reuse its tables and rows."""
    texts = {name: frozenset(_texts(name, table_rows)) for name, table_rows in rows.items()}
    made: dict[str, Made] = {}
    placed: dict[str, Placed] = {}
    snapshot = canonical(rows, origin, audit, made=made, placed=placed)
    return Known(rows, _generated_names(rows), texts, snapshot, prints=prints or {}, made=made, placed=placed)


def canonical(
    rows: dict[str, list[dict[str, Any]]],
    origin: datetime,
    audit: bool,
    before: Known | None = None,
    made: dict[str, Made] | None = None,
    placed: dict[str, Placed] | None = None,
) -> dict[str, Any]:
    """The snapshot of tables read as stored, relative to `origin` (the world's anchor day).

    With `before` (an earlier snapshot of the same world, from the same anchor day), a table read exactly as it was
    then, holding no generated id whose name has changed since, is taken from it whole; in a table that changed,
    each row read exactly as one of `before`'s is taken from it (the same values give the same canonical row, and
    an episode adds or changes a few rows of the tables it touches). `made` and `placed` are filled with what
    `Known` keeps of them.
    """
    names = _generated_names(rows)
    renamed = (
        set()
        if before is None
        else {k for k in names.keys() | before.names.keys() if names.get(k) != before.names.get(k)}
    )
    tables, keys = {}, {}
    for name, table_rows in rows.items():
        unrenamed = before is not None and name in before.snapshot["tables"] and not renamed & before.texts[name]
        if unrenamed and before is not None and before.rows.get(name) == table_rows:
            tables[name], keys[name] = before.snapshot["tables"][name], before.snapshot["keys"][name]
            continue
        key = KEYS.get(name) or tuple(column.name for column in business_tables()[name].primary_key.columns)
        earlier = before.made.get(name, {}) if unrenamed and before is not None else {}
        entries = []
        # Filled into `placed` when given; else a copy of `before`'s, which other diffs share.
        places = (
            placed.setdefault(name, {}) if placed is not None else dict(before.placed.get(name, {}) if before else {})
        )
        for row in _sequenced(name, table_rows, places):
            values = tuple(row.values())
            entry = _looked_up(earlier, values)
            if entry is None:
                normalised = _row(name, row, origin, names)
                entry = normalised, _order(normalised, key)
            entries.append((values, entry))
        entries.sort(key=lambda item: item[1][1])
        if made is not None:
            made[name] = dict(entries)
        tables[name], keys[name] = [normalised for _, (normalised, _) in entries], list(key)
    return {"format": FORMAT, "origin": iso_exact(origin), "audit": audit, "keys": keys, "tables": tables}


def digest(snapshot: dict[str, Any], before: Known | None = None) -> str:
    """sha256 of the canonical JSON of what the snapshot holds (not where its clock started).

    The JSON is `dumps` of {"audit", "format", "tables"}, written table by table so that a table taken whole from
    `before` (canonical(..., before=...)) reuses the text already written for it: the same bytes either way.
    """
    tables: dict[str, Any] = snapshot["tables"]
    kept: dict[str, Any] = before.snapshot["tables"] if before is not None else {}
    parts = [f"{dumps(name)}:{_table_json(name, rows, before, kept)}" for name, rows in sorted(tables.items())]
    head = f'{{"audit":{dumps(snapshot["audit"])},"format":{dumps(snapshot["format"])},"tables":{{'
    return "sha256:" + sha256((head + ",".join(parts) + "}}").encode()).hexdigest()


def _table_json(name: str, rows: list[dict[str, Any]], before: Known | None, kept: dict[str, Any]) -> str:
    """A table's canonical JSON, reusing what `before` wrote of it whole or of its rows (the same bytes)."""
    if before is None:
        return dumps(rows)
    if rows is kept.get(name):
        return before.table_json(name)
    written = before.row_texts()
    return "[" + ",".join(written.get(id(row)) or dumps(row) for row in rows) + "]"


def dumps(value: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, UTF-8 text as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def relative(moment: datetime, origin: datetime) -> str:
    """`day±N` after the origin day, then the time of day: day+0T09:00:00Z, day-3T18:20:05.250000Z."""
    delta = as_utc(moment) - origin
    days = delta.days
    rest = delta - timedelta(days=days)
    hours, seconds = divmod(rest.seconds, 3600)
    text = f"day{days:+d}T{hours:02d}:{seconds // 60:02d}:{seconds % 60:02d}"
    return text + (f".{rest.microseconds:06d}Z" if rest.microseconds else "Z")


def _looked_up(earlier: dict[tuple[Any, ...], Any], values: tuple[Any, ...]) -> Any:
    """What was made before from a row of these values, if it was."""
    try:
        return earlier.get(values)
    except TypeError:  # a value that is no key (JSON a driver hands over parsed): the row is made again
        return None


def _hashable(values: tuple[Any, ...]) -> bool:
    try:
        hash(values)
    except TypeError:
        return False
    return True


def _generated_names(rows: dict[str, list[dict[str, Any]]]) -> dict[str, str]:
    names: dict[str, str] = {}
    for table, (label, order) in GENERATED.items():
        ordered = sorted(rows.get(table, []), key=lambda row: _order(row, order))
        names |= {row["id"]: f"{label}#{number}" for number, row in enumerate(ordered, start=1)}
    return names


def _sequenced(table: str, rows: list[dict[str, Any]], places: Placed) -> list[dict[str, Any]]:
    """Rows with `seq` (their place within their group, in order of appearance) where the table has one.

    `places` holds the sort keys of rows seen before, by their values, and is given those of the others.
    """
    if table not in SEQUENCES:
        return rows
    group, order = SEQUENCES[table]

    def place(row: dict[str, Any]) -> tuple[Any, ...]:
        values = tuple(row.values())
        found: tuple[Any, ...] | None = _looked_up(places, values)
        if found is None:
            found = (_order(row, group), _order(row, order))
            if _hashable(values):
                places[values] = found
        return found

    counters: dict[tuple[Any, ...], int] = {}
    sequenced = []
    for row in sorted(rows, key=place):
        at = tuple(row[column] for column in group)
        counters[at] = counters.get(at, 0) + 1
        sequenced.append({**row, "seq": counters[at]})
    return sequenced


def _row(table: str, row: dict[str, Any], origin: datetime, names: dict[str, str]) -> dict[str, Any]:
    left_out, json_columns = LEFT_OUT.get(table, ()), JSON_COLUMNS.get(table, ())
    out = {}
    for column, value in row.items():
        if column in left_out:
            continue
        if column in json_columns and isinstance(value, str):
            value = _parsed(value)
        out[column] = _value(value, origin, names)
    return out


def _texts(table: str, rows: list[dict[str, Any]]) -> set[str]:
    """Every text value of a table's rows, those inside its JSON columns included."""
    json_columns = JSON_COLUMNS.get(table, ())
    found: set[str] = set()
    for row in rows:
        for column, value in row.items():
            _collect(_parsed(value) if column in json_columns and isinstance(value, str) else value, found)
    return found


def _collect(value: Any, found: set[str]) -> None:
    if isinstance(value, str):
        found.add(value)
    elif isinstance(value, dict):
        for item in value.values():
            _collect(item, found)
    elif isinstance(value, list):
        for item in value:
            _collect(item, found)


def _parsed(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _value(value: Any, origin: datetime, names: dict[str, str]) -> Any:
    if isinstance(value, datetime):
        return relative(value, origin)
    if isinstance(value, str):
        if value in names:
            return names[value]
        if ISO_TIME.match(value):
            return relative(datetime.fromisoformat(value.replace("Z", "+00:00")), origin)
        return value
    if isinstance(value, dict):
        return {key: _value(item, origin, names) for key, item in value.items()}
    if isinstance(value, list):
        return [_value(item, origin, names) for item in value]
    return value


def _order(row: dict[str, Any], columns: tuple[str, ...]) -> tuple[Any, ...]:
    """A sort key that never compares None with a value, nor values of different types."""
    key: list[Any] = []
    for column in columns:
        value = row.get(column)
        if isinstance(value, datetime):
            value = as_utc(value).isoformat()
        key.append((value is not None, type(value).__name__, value if value is not None else 0))
    return tuple(key)

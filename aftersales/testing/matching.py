"""Does a world's diff match a task's expected outcome? Pure functions over the diff JSON (aftersales-world-diff/1).

Rules: a table that changed must be one the task allows; for each table the task describes, the rows of each kind
(added, removed, changed) must pair one to one with the expected rows (a kind not described must not happen), each
pair agreeing on every matcher. Fields a changed row does not name may change freely.
"""

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from aftersales.testing.tasks import Absent, AnyValue, Expected, ExpectedRow, FieldChange, OneOf, Present

KINDS = ("added", "removed", "changed")
MISSING = object()


def matches(matcher: Any, value: Any) -> bool:
    """Whether `value` (MISSING when the field is not there) satisfies one matcher."""
    if isinstance(matcher, AnyValue):
        return True
    if isinstance(matcher, Absent):
        return value is MISSING or value is None
    if isinstance(matcher, Present):
        return value is not MISSING and value is not None
    if isinstance(matcher, OneOf):
        return any(_same(option, value) for option in matcher.one_of)
    return _same(matcher, value)


def _same(expected: Any, value: Any) -> bool:
    if value is MISSING:
        return False
    if isinstance(expected, bool) or isinstance(value, bool):
        # True == 1 in Python; in a world's data a flag and a number are different things.
        return type(expected) is type(value) and expected == value
    return bool(expected == value)


def show(matcher: Any) -> str:
    """A matcher as a person reads it."""
    if isinstance(matcher, BaseModel):
        return str(matcher.model_dump(exclude_defaults=False))
    return repr(matcher)


def row_problems(expected: ExpectedRow, actual: Mapping[str, Any], kind: str) -> list[str]:
    """Why an actual diff row does not match an expected one (empty when it does)."""
    problems = []
    for name, matcher in expected.key.items():
        value = actual.get("key", {}).get(name, MISSING)
        if not matches(matcher, value):
            problems.append(f"key {name} is {_shown(value)}, expected {show(matcher)}")
    if kind == "changed":
        fields = actual.get("fields", {})
        for name, given in expected.fields.items():
            change = given if isinstance(given, FieldChange) else FieldChange(after=given)
            if name not in fields:
                if not isinstance(change.after, Absent):
                    problems.append(f"{name} did not change, expected {show(change.after)}")
                continue
            if isinstance(change.after, Absent):
                problems.append(f"{name} changed to {_shown(fields[name]['after'])}, expected no change")
                continue
            for side in ("before", "after"):
                if not matches(getattr(change, side), fields[name][side]):
                    problems.append(
                        f"{name} {side} is {_shown(fields[name][side])}, expected {show(getattr(change, side))}"
                    )
    else:
        row = actual.get("row", {})
        for name, matcher in expected.row.items():
            value = row.get(name, MISSING)
            if not matches(matcher, value):
                problems.append(f"{name} is {_shown(value)}, expected {show(matcher)}")
    return problems


def pair(expected: list[ExpectedRow], actual: list[Mapping[str, Any]], fits: Callable[[int, int], bool]) -> bool:
    """Whether expected and actual rows pair one to one with every pair fitting (Kuhn's augmenting paths)."""
    if len(expected) != len(actual):
        return False
    partner: dict[int, int] = {}  # actual index -> expected index

    def place(e: int, seen: set[int]) -> bool:
        for a in range(len(actual)):
            if a in seen or not fits(e, a):
                continue
            seen.add(a)
            if a not in partner or place(partner[a], seen):
                partner[a] = e
                return True
        return False

    return all(place(e, set()) for e in range(len(expected)))


def outcome_problems(expected: Expected, diff: Mapping[str, Any]) -> list[str]:
    """Every way the diff misses the expected outcome; empty when it matches."""
    problems = []
    tables: Mapping[str, Any] = diff.get("tables", {})
    allowed = expected.allowed()
    for name in sorted(set(tables) - allowed):
        counts = ", ".join(f"{len(tables[name][kind])} {kind}" for kind in KINDS if tables[name][kind])
        problems.append(f"{name} changed ({counts}) but the task allows no change there")
    for name, table in expected.tables.items():
        entry = tables.get(name, {})
        for kind in KINDS:
            problems.extend(_kind_problems(name, kind, getattr(table, kind), entry.get(kind, [])))
    return problems


def _kind_problems(table: str, kind: str, expected: list[ExpectedRow], actual: list[Mapping[str, Any]]) -> list[str]:
    verdicts = [[not row_problems(e, a, kind) for a in actual] for e in expected]
    if pair(expected, actual, lambda e, a: verdicts[e][a]):
        return []
    if len(expected) != len(actual):
        found = ", ".join(_label(a) for a in actual) or "none"
        head = f"{table}: expected {len(expected)} {kind} row(s), found {len(actual)} ({found})"
        details = [
            _closest(table, kind, e, actual) for e, fits in zip(expected, verdicts, strict=True) if not any(fits)
        ]
        return [head, *[detail for detail in details if detail]]
    return [
        _closest(table, kind, e, actual) or f"{table}: the {kind} rows do not pair up"
        for e, fits in zip(expected, verdicts, strict=True)
        if not any(fits)
    ] or [f"{table}: the {kind} rows do not pair up"]


def _closest(table: str, kind: str, expected: ExpectedRow, actual: list[Mapping[str, Any]]) -> str:
    if not actual:
        return ""
    best = min(actual, key=lambda a: len(row_problems(expected, a, kind)))
    return f"{table}: no {kind} row matches; closest {_label(best)}: " + "; ".join(row_problems(expected, best, kind))


def _label(row: Mapping[str, Any]) -> str:
    return "/".join(str(value) for value in row.get("key", {}).values())


def _shown(value: Any) -> str:
    return "missing" if value is MISSING else repr(value)

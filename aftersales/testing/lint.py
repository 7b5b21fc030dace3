"""`aftersales tasks lint`: what a task names that the server, the baseline or the world's tables do not have.

Each problem is (where, what): the path in the task file (`reference.3.arguments.quote_id`) and what is wrong with
what to do. The checks are pure; the tools, their result schemas and the baseline's stories come in a Catalogue.
"""

import difflib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from aftersales.settings import Settings
from aftersales.testing.tasks import REFERENCE, SAVED, Step, Task
from aftersales.worlds.storage.rows import business_tables

Problem = tuple[str, str]  # (the path in the task file, what is wrong and what to do)
# Places in the call rules and the reference that always hold a tool's name: a step's call, a pattern's tool, the
# items of these lists and the keys of these maps. Any other string there spelled like a tool is checked too, so a
# rule kind added later is checked without being listed here.
TOOL_FIELDS = frozenset({"call", "tool"})
TOOL_LISTS = frozenset({"must_call", "must_not_call"})
TOOL_KEYS = frozenset({"max_calls_per_tool"})
TOOL_SHAPE = re.compile(r"^after_sales_[a-z0-9_]+$")
VALUES = frozenset({"arguments", "say"})  # what a call is given or an agent says: values, never tool names


@dataclass(frozen=True)
class Catalogue:
    """What a task may name: the tools served with each one's result schema, and the baseline's stories."""

    tools: Mapping[str, Mapping[str, Any]]  # tool name -> its outputSchema (empty when it declares none)
    stories: frozenset[str]

    @classmethod
    def of(cls, settings: Settings) -> "Catalogue":
        """The tools a server under `settings` serves (built without a database) and its baseline's stories."""
        from aftersales.bootstrap import baseline_path  # the SDK and every tool: imported only to lint
        from aftersales.mcp.described import definitions

        tools = {entry["name"]: entry.get("outputSchema") or {} for entry in definitions(settings)}
        path = baseline_path(settings.seed_dir)
        stories = json.loads(path.read_text(encoding="utf-8"))["stories"] if path.is_file() else {}
        return cls(tools, frozenset(stories))


def task_problems(task: Task, catalogue: Catalogue) -> list[Problem]:
    """Every name in `task` the catalogue or the world does not have, in the order they appear in the file."""
    return (
        _story_problems(task, catalogue)
        + _tool_problems(task, catalogue)
        + table_problems(task)
        + _saved_field_problems(task, catalogue)
        + page_problems(task)
    )


def page_problems(task: Task) -> list[Problem]:
    """A URL question answered like a form, or a form answered with a page (the server's URL questions are known)."""
    from aftersales.mcp.url_questions import ACCOUNT_QUESTION  # the SDK: imported only to lint

    problems, url_questions = [], {ACCOUNT_QUESTION}  # asked in URL mode: answered on a page, never with content
    for key, answer in task.customer.forms.items():
        where = f"customer.forms.{key}"
        if key in url_questions and answer.content is not None:
            problems.append(
                (
                    f"{where}.content",
                    f"{key} is a URL question (a page, not a form): it takes no content; "
                    "say what the customer types there under page",
                )
            )
        elif key in url_questions and answer.action == "accept" and answer.page is None:
            problems.append(
                (
                    where,
                    f"{key} is answered accept with no page: give the page's holder, account and bank "
                    "(and waits, to let it expire), or answer decline or cancel (the customer closes it)",
                )
            )
        elif key not in url_questions and answer.page is not None:
            problems.append(
                (
                    f"{where}.page",
                    f"{key} is a form, not a URL question: page answers only {', '.join(sorted(url_questions))}",
                )
            )
    return problems


def _story_problems(task: Task, catalogue: Catalogue) -> list[Problem]:
    if task.story is None or task.story in catalogue.stories:
        return []
    hint = _hint(task.story, catalogue.stories, "name a story of seed/README.md's table, or leave story out")
    return [("story", f"{task.story!r} is not a story the baseline has: {hint}")]


def _tool_problems(task: Task, catalogue: Catalogue) -> list[Problem]:
    """Each tool name in the call rules, the reference steps, the events and the form answers that is not served."""
    places = [
        *tool_names(task.calls, "calls"),
        *tool_names(task.reference, "reference"),
        *((f"world.events.{index}.after", event.after) for index, event in enumerate(task.world.events)),
        *((f"customer.forms.{key}", key.split(":", 1)[0]) for key in task.customer.forms),
    ]
    return [
        (where, f"{name!r} is not a tool this server serves: {_hint(name, catalogue.tools, 'tools')}")
        for where, name in places
        if name not in catalogue.tools
    ]


def tool_names(value: Any, where: str, field: str = "") -> Iterator[tuple[str, str]]:
    """(path, name) of every tool name in a part of a task: in the places that hold one, or spelled like one."""
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            if name not in VALUES:
                yield from tool_names(getattr(value, name), f"{where}.{name}", name)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from tool_names(item, f"{where}.{index}", field if field in TOOL_LISTS else "")
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and (field in TOOL_KEYS or TOOL_SHAPE.match(key)):
                yield f"{where}.{key}", key
            if key not in VALUES:
                yield from tool_names(item, f"{where}.{key}")
    elif isinstance(value, str) and (field in TOOL_FIELDS | TOOL_LISTS or TOOL_SHAPE.match(value)):
        yield where, value


def table_problems(task: Task) -> list[Problem]:
    """Tables and columns of the expected outcome and the extra rows that the world does not have."""
    tables = business_tables()
    problems = []
    named = [(f"expected.tables.{name}", name) for name in task.expected.tables]
    named += [(f"expected.only.{index}", name) for index, name in enumerate(task.expected.only or [])]
    named += [(f"world.rows.{name}", name) for name in task.world.rows]
    for where, name in named:
        if name not in tables:
            problems.append((where, f"{name!r} is not a table of the world: {_hint(name, tables, 'tables')}"))
    columns = [
        (f"expected.tables.{table}.{kind}.{index}.{part}.{column}", table, column)
        for table, expected in task.expected.tables.items()
        for kind in ("added", "removed", "changed")
        for index, row in enumerate(getattr(expected, kind))
        for part in ("key", "row", "fields")
        for column in getattr(row, part)
    ]
    columns += [
        (f"world.rows.{table}.{index}.{column}", table, column)
        for table, rows in task.world.rows.items()
        for index, row in enumerate(rows)
        for column in row
    ]
    for where, table, column in columns:
        known = [found.name for found in tables[table].columns] if table in tables else None
        if known is not None and column not in known:
            problems.append((where, f"{column!r} is not a column of {table}: {_hint(column, known, 'columns')}"))
    return problems


def _saved_field_problems(task: Task, catalogue: Catalogue) -> list[Problem]:
    """Each "${name.path}" must name a result the saving call has: a field of its tool's outputSchema, not an error."""
    problems: list[Problem] = []
    saved: dict[str, tuple[int, Step]] = {}  # name -> the latest call step saving it so far, and its index
    for index, step in enumerate(task.reference):
        found = (
            [(f"reference.{index}.say", match) for match in SAVED.finditer(step.say)]
            if step.say is not None
            else list(_references(step.arguments, f"reference.{index}.arguments"))
        )
        for where, match in found:
            name, path = match.group(1), match.group(2)
            if name not in saved:  # the format refuses a name no earlier step saves
                continue
            number, source = saved[name]
            if source.expect in ("tool_error", "protocol_error"):
                problems.append(
                    (
                        where,
                        f"${{{name}.{path}}} is the result of reference.{number}, which expects a {source.expect}: "
                        "a failed call saves no result; save the call that succeeds",
                    )
                )
                continue
            schema = catalogue.tools.get(source.call or "")  # an unserved tool is a problem of its own
            missing = _missing(schema, path.split(".")) if schema is not None else None
            if missing is not None:
                problems.append((where, f"${{{name}.{path}}}: {source.call}'s result {missing}"))
        if step.save and step.call is not None:
            saved[step.save] = (index, step)
    return problems


def _references(value: Any, where: str) -> Iterator[tuple[str, re.Match[str]]]:
    """(path, match) of each argument value that is a whole "${name.path}" (only those are replaced)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _references(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _references(item, f"{where}.{index}")
    elif isinstance(value, str) and (match := REFERENCE.match(value)):
        yield where, match


def _missing(schema: Mapping[str, Any], path: list[str]) -> str | None:
    """None when a result of `schema` can have `path`; else what it lacks and what it has there."""
    node: Mapping[str, Any] = schema
    walked: list[str] = []
    for part in path:
        options = _options(schema, node)
        nested = [found for option in options if (found := _child(schema, option, part)) is not None]
        if not nested:
            fields = sorted({name for option in options for name in option.get("properties", {})})
            place = f"at {'.'.join(walked)} " if walked else ""
            if any(option.get("type") == "array" for option in options):
                return f"is a list {place}(not {part!r}): give an index, as in {'.'.join([*walked, '0'])}"
            if not fields:
                return f"has no fields {place}(it is a value there): end the path at {'.'.join(walked)}"
            return f"has no field {part!r} {place}(fields: {', '.join(fields)}): name one of those"
        node = {"anyOf": nested} if len(nested) > 1 else nested[0]
        walked.append(part)
    return None


def _options(root: Mapping[str, Any], node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The object or array shapes a schema node may take, its references followed and its unions opened."""
    if "$ref" in node:
        return _options(root, _resolved(root, node["$ref"]))
    branches = node.get("anyOf") or node.get("oneOf") or node.get("allOf")
    if branches:
        return [shape for branch in branches for shape in _options(root, branch)]
    return [node]


def _child(root: Mapping[str, Any], node: Mapping[str, Any], part: str) -> Mapping[str, Any] | None:
    """The schema of `part` inside one shape, or None when that shape has no such field or index."""
    if part.isdigit() and isinstance(node.get("items"), Mapping):
        return node["items"]  # type: ignore[no-any-return]
    if part in node.get("properties", {}):
        return node["properties"][part]  # type: ignore[no-any-return]
    extra = node.get("additionalProperties")
    return extra if isinstance(extra, Mapping) else None


def _resolved(root: Mapping[str, Any], ref: str) -> Mapping[str, Any]:
    """A local "#/$defs/Name" reference's schema (any other is an open shape: nothing can be said of it)."""
    found: Any = root
    for part in ref.removeprefix("#/").split("/") if ref.startswith("#/") else []:
        found = found.get(part, {}) if isinstance(found, Mapping) else {}
    return found if isinstance(found, Mapping) and found is not root else {"additionalProperties": {}}


def _hint(name: str, known: Iterable[str], kind: str) -> str:
    """What to write instead: the near miss of one of `known`, else them all (or, for a sentence, that sentence).

    Names are compared without the prefix they all share (after_sales_), which would make any two of them alike.
    """
    names = list(known)
    first, last = min(names, default=""), max(names, default="")  # their shared prefix is everyone's
    prefix = first[: next((i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b), len(first))]
    if len(names) < 2:
        prefix = ""
    close = difflib.get_close_matches(name.removeprefix(prefix), [n.removeprefix(prefix) for n in names], n=1)
    if close:
        return f"did you mean {prefix}{close[0]}?"
    return f"{kind}: {', '.join(names)}" if " " not in kind else kind

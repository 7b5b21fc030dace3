"""Tool description sets: the texts a model reads about each tool, as a file a team edits, checks and serves.

A set (format aftersales-tool-descriptions/1, YAML) holds, per tool, a title, a description and the description of
each input field. It changes those texts only: names, schemas, annotations (apart from the title they repeat) and
behaviour stay the server's. A set names only the tools and fields it changes; the rest keep today's text. Sets are
checked on load against the tools the server has, and every problem is reported at once.
"""

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from aftersales.worlds.model import described_as

FORMAT = "aftersales-tool-descriptions/1"
DEFAULT_NAME = "default"  # the set of today's texts, as the server serves them without one
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
# Room for a rewrite several times the longest text today (1741 characters of description, 231 of a field), and a
# title a host can show on one line.
LIMITS = {"title": 100, "description": 8000, "field": 1000}
TOP_KEYS = ("format", "name", "tools")
TOOL_KEYS = ("title", "description", "fields")
Tools = Sequence[Mapping[str, Any]]  # tools/list entries in wire form (camelCase keys)


class DescriptionSetError(ValueError):
    """A description set that cannot be served; `problems` holds one three-part sentence per problem."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source, self.problems = source, problems
        listed = "\n".join(f"  - {problem}" for problem in problems)
        count = f"{len(problems)} problem{'s' if len(problems) > 1 else ''}"
        super().__init__(f"{source} is not a tool description set this server can serve ({count}):\n{listed}")


@dataclass(frozen=True)
class ToolTexts:
    """One tool's texts in a set; None (or a field left out) keeps the server's own."""

    title: str | None = None
    description: str | None = None
    fields: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class DescriptionSet:
    """A named set of tool texts."""

    name: str
    tools: Mapping[str, ToolTexts]

    def as_data(self) -> dict[str, Any]:
        """The set as the file holds it (texts left out where the set keeps the server's)."""
        tools: dict[str, Any] = {}
        for name, texts in self.tools.items():
            entry: dict[str, Any] = {key: getattr(texts, key) for key in ("title", "description")}
            entry = {key: value for key, value in entry.items() if value is not None}
            if texts.fields:
                entry["fields"] = dict(texts.fields)
            tools[name] = entry
        return {"format": FORMAT, "name": self.name, "tools": tools}

    def canonical(self) -> str:
        """One JSON text for the same set however its file was laid out (what a world stores and hashes)."""
        return json.dumps(self.as_data(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    @property
    def sha256(self) -> str:
        """The hash of the set's texts (not its name): equal texts, equal hashes."""
        return described_as(self.canonical())["sha256"]

    def shown(self) -> dict[str, str]:
        """Its name and hash, as report.json and the worlds admin API show them."""
        return described_as(self.canonical())

    def completed(self, tools: Tools) -> "DescriptionSet":
        """Every text `tools` serve once this set is applied: the set a model actually reads, under this name."""
        return replace_name(defaults(served(tools, self)), self.name)


def replace_name(chosen: DescriptionSet, name: str) -> DescriptionSet:
    """The same texts under another name."""
    return DescriptionSet(name, chosen.tools)


def defaults(tools: Tools) -> DescriptionSet:
    """The set of every text `tools` carry, named "default"."""
    return DescriptionSet(
        DEFAULT_NAME,
        {
            tool["name"]: ToolTexts(
                title=tool.get("title", ""),
                description=tool.get("description", ""),
                fields={name: prop.get("description", "") for name, prop in _properties(tool).items()},
            )
            for tool in tools
        },
    )


def served(tools: Tools, chosen: DescriptionSet | None) -> list[dict[str, Any]]:
    """`tools` (tools/list entries) with the set's texts in place of theirs; everything else unchanged."""
    if chosen is None:
        return [dict(tool) for tool in tools]
    return [_described(tool, chosen.tools.get(tool["name"])) for tool in tools]


def _described(tool: Mapping[str, Any], texts: ToolTexts | None) -> dict[str, Any]:
    described = dict(tool)
    if texts is None:
        return described
    if texts.title is not None:
        described["title"] = texts.title
        if isinstance(tool.get("annotations"), Mapping) and "title" in tool["annotations"]:
            # The annotations repeat the title for hosts that read them; the hints themselves never change.
            described["annotations"] = {**tool["annotations"], "title": texts.title}
    if texts.description is not None:
        described["description"] = texts.description
    if texts.fields:
        properties = {
            name: {**prop, "description": texts.fields[name]} if name in texts.fields else prop
            for name, prop in _properties(tool).items()
        }
        described["inputSchema"] = {**tool["inputSchema"], "properties": properties}
    return described


def _properties(tool: Mapping[str, Any]) -> dict[str, Any]:
    schema = tool.get("inputSchema") or {}
    return dict(schema.get("properties") or {})


def from_canonical(text: str) -> DescriptionSet:
    """A set from its canonical text (as stored after it was checked)."""
    data = json.loads(text)
    tools = {
        name: ToolTexts(entry.get("title"), entry.get("description"), entry.get("fields", {}))
        for name, entry in data["tools"].items()
    }
    return DescriptionSet(data["name"], tools)


def load(path: Path, tools: Tools, source: str | None = None) -> DescriptionSet:
    """Read and check a set file against the tools the server has; DescriptionSetError lists every problem.

    `source` names the file in the messages (default its path; a setting's name where one named it).
    """
    source = source or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as problem:
        reason = problem.strerror if isinstance(problem, OSError) and problem.strerror else "it is not UTF-8 text"
        raise DescriptionSetError(
            source,
            [
                f"the file cannot be read ({reason}). Give the path of a file `aftersales tools descriptions "
                "--export` wrote, readable by this process."
            ],
        ) from None
    return parse_text(text, source, tools, default_name=path.stem)


def parse_text(text: str, source: str, tools: Tools, default_name: str = "unnamed") -> DescriptionSet:
    """Read a set from YAML (JSON is YAML too) and check it."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as problem:
        mark = getattr(problem, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise DescriptionSetError(
            source, [f"the file is not valid YAML{where}. Fix the syntax there (indent block texts under `|-`)."]
        ) from None
    return parse(data, source, tools, default_name)


def parse(data: object, source: str, tools: Tools, default_name: str = "unnamed") -> DescriptionSet:
    """Check a set read from a file or a request body against `tools`; DescriptionSetError lists every problem."""
    problems: list[str] = []
    if not isinstance(data, Mapping):
        raise DescriptionSetError(
            source, [f"the set is {_kind(data)}, not a mapping. Start from `aftersales tools descriptions --export`."]
        )
    for key in sorted(set(map(str, data)) - set(TOP_KEYS)):
        problems.append(f"{key}: unknown key; a set has only {', '.join(TOP_KEYS)}. Remove it or correct its name.")
    if data.get("format") != FORMAT:
        problems.append(
            f"format: {data.get('format')!r} is not {FORMAT!r}, the only version this server reads. Set format: "
            f"{FORMAT} (or export a fresh set with `aftersales tools descriptions --export` and copy your texts in)."
        )
    name = data.get("name", default_name)
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        problems.append(
            f"name: {name!r} is not a set name; a name is 1-64 letters, digits, _ . and -, starting with a letter or "
            "digit. It is how report.json names the set; choose one such as descriptions-v2."
        )
    catalogue = {tool["name"]: set(_properties(tool)) for tool in tools}
    chosen: dict[str, ToolTexts] = {}
    entries = data.get("tools", {})
    if not isinstance(entries, Mapping):
        problems.append(f"tools: is {_kind(entries)}; it must map tool names to their texts.")
        entries = {}
    for tool, entry in entries.items():
        texts = _tool(str(tool), entry, catalogue, problems)
        if texts is not None:
            chosen[str(tool)] = texts
    if problems:
        raise DescriptionSetError(source, problems)
    return DescriptionSet(str(name), chosen)


def _tool(tool: str, entry: object, catalogue: Mapping[str, set[str]], problems: list[str]) -> ToolTexts | None:
    where = f"tools.{tool}"
    if tool not in catalogue:
        problems.append(
            f"{where}: there is no tool {tool!r}; a set describes the tools this server has "
            f"({', '.join(catalogue)}). Correct the name or remove the entry (names never change with a set)."
        )
        return None
    if not isinstance(entry, Mapping):
        problems.append(f"{where}: is {_kind(entry)}; it must be a mapping of {', '.join(TOOL_KEYS)}.")
        return None
    for key in sorted(set(map(str, entry)) - set(TOOL_KEYS)):
        problems.append(
            f"{where}.{key}: unknown key; a tool's entry has only {', '.join(TOOL_KEYS)} (a set changes texts, "
            "never schemas, annotations or behaviour). Remove it."
        )
    title = _text(f"{where}.title", entry.get("title"), "title", problems)
    if title is not None and "\n" in title.strip():
        problems.append(f"{where}.title: has a line break; a title is one line a host shows to people. Join it.")
    description = _text(f"{where}.description", entry.get("description"), "description", problems)
    fields: dict[str, str] = {}
    given = entry.get("fields", {})
    if not isinstance(given, Mapping):
        problems.append(f"{where}.fields: is {_kind(given)}; it must map input field names to their descriptions.")
        given = {}
    for name, value in given.items():
        if str(name) not in catalogue[tool]:
            problems.append(
                f"{where}.fields.{name}: {tool} has no input field {name!r} (it has "
                f"{', '.join(sorted(catalogue[tool])) or 'none'}). Correct the name or remove it."
            )
        elif (text := _text(f"{where}.fields.{name}", value, "field", problems)) is not None:
            fields[str(name)] = text
    return ToolTexts(title, description, fields)


def _text(where: str, value: object, kind: str, problems: list[str]) -> str | None:
    """A text of the set, or None when left out; a problem is recorded when it is not one."""
    if value is None:
        return None
    limit = LIMITS[kind]
    if not isinstance(value, str):
        problems.append(f"{where}: is {_kind(value)}, not text. Write it as text (a block under `|-` for paragraphs).")
    elif not value.strip():
        problems.append(f"{where}: is empty; a model needs words here. Write the text, or remove the key for today's.")
    elif len(value) > limit:
        problems.append(
            f"{where}: is {len(value)} characters; a {kind} text is at most {limit}. Shorten it (every character is "
            "sent to the model on every tools/list)."
        )
    else:
        return value
    return None


def _kind(value: object) -> str:
    names = {dict: "a mapping", list: "a list", str: "text", bool: "true or false", int: "a number", float: "a number"}
    return "empty" if value is None else names.get(type(value), type(value).__name__)


def export(tools: Tools) -> str:
    """Today's texts of `tools` as a set file: the starting point of an alternative set."""
    header = (
        f"# A tool description set ({FORMAT}): the texts the model reads about each tool.\n"
        "# Edit any title, description or field description; delete what you keep unchanged (it keeps the server's\n"
        "# text). Names, schemas, annotations and behaviour cannot change here. Serve it with\n"
        "# AFTERSALES_TOOL_DESCRIPTIONS=FILE, `aftersales world create --descriptions FILE` or\n"
        "# `aftersales eval --descriptions FILE`. report.json names the set by `name:`, else by the file's name\n"
        "# without .yaml, beside the hash of every text served.\n"
    )
    data = {key: value for key, value in defaults(tools).as_data().items() if key != "name"}
    return header + yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)


class _Dumper(yaml.SafeDumper):
    """Writes texts of several lines as literal blocks, so a file reads and diffs like the text itself."""


def _text_block(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text_block)

"""The README and docs/ pages as tests read them: a page, a section, its links and headings, its command blocks."""

import re
from dataclasses import dataclass
from pathlib import Path

from tests.support import ROOT

# A block the page says runs: this line (naming the test file that runs it) right above the block's opening fence.
MARKER = "<!-- runs in make test: "
_RUN = re.compile("^" + re.escape(MARKER) + r"(\S+) -->\n```(\w+)\n(.*?)^```", re.M | re.S)
_FENCE = re.compile(r"^```.*?^```", re.M | re.S)
_HEADING = re.compile(r"(#{1,6}) (.+?)\s*")
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


@dataclass(frozen=True)
class Block:
    """A command block the page says runs, under its nearest heading, and the test file that runs it."""

    page: str
    heading: str
    language: str
    code: str
    test: str


def pages() -> list[str]:
    """Every page of the project's documentation, as paths from the checkout's root."""
    return ["README.md", *sorted(f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md"))]


def page(name: str) -> str:
    """One page's text (`README.md`, `docs/hosts.md`, ...)."""
    return (ROOT / name).read_text(encoding="utf-8")


def prose(text: str) -> str:
    """The text without its fenced code blocks, where neither headings nor links are written."""
    return _FENCE.sub("", text)


def headings(text: str) -> list[tuple[int, int, str]]:
    """Each heading outside code: its line's index, its level and its title."""
    found, fenced = [], False
    for number, line in enumerate(text.split("\n")):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (match := _HEADING.fullmatch(line)):
            found.append((number, len(match[1]), match[2]))
    return found


def section(text: str, heading: str) -> str:
    """What a heading (`## Title`) holds, its own line left out, up to the next heading of its level or higher."""
    level, title = len(heading) - len(heading.lstrip("#")), heading.lstrip("#").strip()
    lines, marks = text.split("\n"), headings(text)
    for index, (number, depth, name) in enumerate(marks):
        if (depth, name) == (level, title):
            end = next((other for other, deeper, _ in marks[index + 1 :] if deeper <= level), len(lines))
            return "\n".join(lines[number + 1 : end])
    raise AssertionError(f"no heading {heading!r}")


def slug(title: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, each space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", title).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors of a page's headings; a repeated one gets -1, -2, ... as GitHub numbers them."""
    seen: dict[str, int] = {}
    found = set()
    for _, _, title in headings(text):
        base = slug(title)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(text: str) -> list[str]:
    """The targets of a page's links and images, outside code (fenced blocks and `inline code`)."""
    return _LINK.findall(re.sub(r"`[^`\n]*`", "", prose(text)))


def broken_links(name: str, text: str) -> list[str]:
    """Each relative link of a page whose file does not exist, or whose #anchor names no heading of that file."""
    problems = []
    for target in links(text):
        if re.match(r"[a-z]+:", target):  # https:, mailto:: not this checkout's
            continue
        path, _, anchor = target.partition("#")
        file = (ROOT / name).parent / path if path else ROOT / name
        if not file.exists():
            problems.append(f"{name}: {target}: no file {path}")
        elif anchor and file.suffix == ".md":
            headed = file.read_text(encoding="utf-8") if path else text
            if anchor not in anchors(headed):
                problems.append(f"{name}: {target}: {file.name} has no heading with the anchor #{anchor}")
    return problems


def run_blocks() -> list[Block]:
    """Every command block the README and docs/ say runs, each with the test file the marker names."""
    blocks = []
    for name in pages():
        text = page(name)
        marks = headings(text)
        for match in _RUN.finditer(text):
            line = text.count("\n", 0, match.start())
            heading = next(title for number, _, title in reversed(marks) if number < line)
            blocks.append(Block(name, heading, match[2], match[3], match[1]))
    return blocks


def blocks_run_by(test: str) -> dict[tuple[str, str, str], str]:
    """The code of each block whose marker names `test`, by (page, heading, language): one block each."""
    found: dict[tuple[str, str, str], str] = {}
    for block in (block for block in run_blocks() if block.test == test):
        key = (block.page, block.heading, block.language)
        assert key not in found, f"two {block.language} blocks marked under {block.heading!r} of {block.page}"
        found[key] = block.code
    return found


def marked_count(text: str) -> int:
    """How many lines of a page are markers (each must open a block `run_blocks` finds)."""
    return sum(line.startswith(MARKER) for line in text.split("\n"))


def relative(path: str) -> str:
    """A test file's path from the checkout's root (what a marker names)."""
    return Path(path).resolve().relative_to(ROOT).as_posix()

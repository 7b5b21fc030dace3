"""`aftersales trace view FILE`: a trajectory file of any run, shown as `aftersales world trace` shows a world's."""

import argparse
import json
import sys
from pathlib import Path

from aftersales.settings import Settings


def add(trace: argparse.ArgumentParser) -> None:
    """Register the trace commands."""
    actions = trace.add_subparsers(dest="action", required=True, metavar="ACTION")
    view = actions.add_parser("view", help="Show a trajectory file (aftersales-trace/1 JSON lines) for a person.")
    view.add_argument("file", type=Path, metavar="FILE", help="A trajectory: an eval's trajectories/TASK.N.jsonl.")
    view.add_argument("--html", type=Path, metavar="OUT", help="Write it as a self-contained HTML page to OUT.")
    view.add_argument("--width", type=int, default=160, help="Cut each printed line at this many characters.")
    view.set_defaults(run=run_view)


def run_view(args: argparse.Namespace, settings: Settings) -> int:
    """Print the trajectory, or write its page; a file that is not a trajectory is one line naming the line."""
    from aftersales.testing.report_html import trajectory_page
    from aftersales.worlds.timeline import describe

    entries = read(args.file)
    if args.html is None:
        print(describe(entries, args.width))
        return 0
    args.html.write_text(trajectory_page(entries, args.file.name), encoding="utf-8")
    print(f"wrote {args.html}", file=sys.stderr)
    return 0


def read(path: Path) -> list[dict[str, object]]:
    """The entries of a trajectory file; a ValueError naming the file and line when one is not a trace entry."""
    if not path.is_file():
        raise ValueError(f"{path} does not exist: give a trajectory file (an eval's trajectories/TASK.N.jsonl)")
    entries = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"{path} line {number} is not JSON ({error.msg}): not a trajectory") from None
        if not isinstance(entry, dict) or "seq" not in entry:
            raise ValueError(f"{path} line {number} is not a trace entry (no seq): not a trajectory")
        entries.append(entry)
    return entries

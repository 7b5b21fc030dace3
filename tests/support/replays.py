"""Conversations recorded as a trial's trajectory would hold them, and played again, without a world or a server."""

import itertools
import json
from pathlib import Path
from typing import Any

from aftersales.testing.conversation.channel import Conversation
from aftersales.testing.conversation.model import CustomerEngine
from aftersales.worlds.trace import turn


def converse(engine: CustomerEngine, messages: list[str], world: str = "w-0000abcd") -> list[dict[str, Any]]:
    """The turns of a conversation in which the agent says `messages` (until the customer ends it), as traced."""
    seq, wall = itertools.count(1), itertools.count()

    entries: list[dict[str, Any]] = []

    def record(speaker: str, text: str, **facts: Any) -> dict[str, Any]:
        wall_at = f"2026-12-01T10:00:{next(wall):02d}.000000Z"  # wall clocks differ from one run to the next
        entry = turn(world, "2026-12-01T09:00:00.000000Z", wall_at, speaker, text, **facts) | {"seq": next(seq)}
        entries.append(entry)
        return entry

    conversation = Conversation(engine, 12, record)
    conversation.open()
    for message in messages:
        if conversation.ended is not None:
            break
        conversation.say(message)
    return entries


def write(folder: Path, task: str, trial: int, entries: list[dict[str, Any]]) -> Path:
    """Write entries as `folder`'s trajectory of one trial, as `aftersales eval` does."""
    path = folder / "trajectories" / f"{task}.{trial}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(entry, sort_keys=True) + "\n" for entry in entries), encoding="utf-8")
    return path


def turns(entries: list[dict[str, Any]], speaker: str) -> list[dict[str, Any]]:
    """One side's turns."""
    return [entry for entry in entries if entry.get("type") == "turn" and entry["speaker"] == speaker]

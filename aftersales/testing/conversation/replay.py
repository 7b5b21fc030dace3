"""The replayed customer: says again what an earlier run's customer said, while the agent says what it said then.

`--customer replay:DIR` (DIR an earlier run's `--out` folder) plays each trial's customer from that run's
`trajectories/<task>.<trial>.jsonl`: the recorded opening, then, for each agent message that matches the one
recorded at that turn, the recorded reply with every recorded fact of its turn (revealed, miss, ended, reason, the
engine's name, and any other field, such as `usage`). Messages match when they are equal after white space is
collapsed and per-trial ids are numbered (comparison.Ids). At the first message that does not match, or one more
than the recording holds, the fallback engine (`replay:DIR,fallback=NAME`, default scripted) takes over: it is told
the conversation so far (`resume`, or by hearing the agent's messages through `reply`, its answers discarded), and
its first reply is marked `diverged`. A replayed reply spends nothing: `spent` is the fallback's once it played.

While the replay lasts, a scripted customer hears every agent message too, its replies discarded, so the world's
form answers follow the task's changes of mind at the turn they were made (customer.following).
"""

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from aftersales.testing.comparison import Ids
from aftersales.testing.conversation.model import ChangesMind, CustomerEngine, Reply, Resumes
from aftersales.testing.conversation.scripted import CustomerGone, ScriptedCustomer
from aftersales.testing.llm import Spend
from aftersales.testing.tasks import Customer, Task

PREFIX = "replay:"
FALLBACK = ",fallback="
DEFAULT_FALLBACK = "scripted"
OWNED = frozenset({"format", "type", "seq", "world", "at", "wall_at", "speaker", "text", "engine"})  # the trace's
FACTS = frozenset({"revealed", "miss", "ended", "reason"})  # Reply's own fields


class ReplayMissing(ValueError):
    """The folder to replay lacks a trial (or any trajectory): raised before any world is made."""


@dataclass(frozen=True)
class Source:
    """What `replay:DIR[,fallback=NAME]` names: the folder of the earlier run, and the engine taking over."""

    folder: Path
    fallback: str = DEFAULT_FALLBACK

    @property
    def name(self) -> str:
        """The engine name as given."""
        return f"{PREFIX}{self.folder}" + ("" if self.fallback == DEFAULT_FALLBACK else f"{FALLBACK}{self.fallback}")

    def trajectory(self, task: str, trial: int) -> Path:
        """Where the earlier run wrote this trial's trajectory."""
        return self.folder / "trajectories" / f"{task}.{trial}.jsonl"


def parse(name: str) -> Source | None:
    """The replay an engine name asks for, or None when it names another engine."""
    if not name.startswith(PREFIX):
        return None
    folder, _, fallback = name.removeprefix(PREFIX).rpartition(FALLBACK)
    if not folder:  # no ",fallback=" in the name
        folder, fallback = fallback, DEFAULT_FALLBACK
    if not folder or not fallback:
        raise ValueError(f"--customer {name!r}: use replay:DIR, or replay:DIR{FALLBACK}ENGINE to name the fallback")
    return Source(Path(folder), fallback)


@dataclass(frozen=True)
class Played:
    """One recorded customer turn: the engine that played it and its reply, every other recorded field in facts."""

    engine: str
    reply: Reply


@dataclass(frozen=True)
class Recording:
    """A recorded trial's customer side: the opening, then each agent message with the customer's reply."""

    path: Path
    opening: Played
    exchanges: tuple[tuple[str, Played], ...] = field(default=())


def played(entry: dict[str, Any]) -> Played:
    """A recorded customer turn as the reply to give again."""
    facts = {key: value for key, value in entry.items() if key not in OWNED | FACTS}
    reply = Reply(
        str(entry["text"]),
        tuple(entry.get("revealed", ())),
        bool(entry.get("ended", False)),
        entry.get("reason"),
        bool(entry.get("miss", False)),
        facts=facts,
    )
    return Played(str(entry.get("engine", "")), reply)


def recording(source: Source, task: str, trial: int) -> Recording:
    """The customer side of one recorded trial; ReplayMissing when the folder does not hold it."""
    path = source.trajectory(task, trial)
    where = f"--customer {source.name}"
    if not path.is_file():
        raise ReplayMissing(f"{where}: no recorded trial {task}.{trial} ({path} is missing)")
    turns = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            entry = json.loads(line) if line.strip() else {}
        except json.JSONDecodeError:
            raise ReplayMissing(f"{where}: {path} is not a trajectory (line {number} is not JSON)") from None
        if isinstance(entry, dict) and entry.get("type") == "turn":
            turns.append(entry)
    if not turns or turns[0].get("speaker") != "customer":
        raise ReplayMissing(f"{where}: {path} holds no conversation (replay a run made with --mode conversation)")
    # The channel records an agent turn and the customer's reply to it together, in that order.
    pairs = zip(turns[1::2], turns[2::2], strict=False)
    exchanges = tuple((str(agent["text"]), played(customer)) for agent, customer in pairs)
    return Recording(path, played(turns[0]), exchanges)


def check(name: str, jobs: Iterable[tuple[str, int]]) -> None:
    """For a replay, that the folder holds every (task id, trial) to run: one ReplayMissing line naming what is not."""
    source = parse(name)
    if source is None:
        return
    if not any((source.folder / "trajectories").glob("*.jsonl")):
        raise ReplayMissing(
            f"--customer {source.name}: {source.folder} holds no trajectories (replay the --out folder of an earlier "
            "`aftersales eval --mode conversation`, with trajectories/<task>.<trial>.jsonl)"
        )
    missing = []
    for task, trial in jobs:
        if source.trajectory(task, trial).is_file():
            recording(source, task, trial)  # one that is not a conversation's raises its own line
        else:
            missing.append(f"{task}.{trial}")
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        raise ReplayMissing(
            f"--customer {source.name}: {source.folder / 'trajectories'} has no recorded trial "
            f"{', '.join(missing[:3])}{more} (replay a run of the same tasks with as many trials)"
        )


def normalised(message: str, ids: Ids) -> str:
    """A message as replay compares it: white space collapsed, per-trial ids numbered in order of appearance."""
    return " ".join(ids.text(message).split())


class ReplayCustomer:
    """A recorded customer, then a fallback engine from the first message the agent did not send then."""

    def __init__(
        self, recorded: Recording, fallback: Callable[[], CustomerEngine], tracker: CustomerEngine | None = None
    ) -> None:
        self._recorded, self._make, self._tracker = recorded, fallback, tracker
        theirs = Ids()
        self._expected = [normalised(message, theirs) for message, _ in recorded.exchanges]
        self._ours = Ids()
        self._heard: list[tuple[str, Reply]] = []  # the agent's messages so far, with the replies given
        self._fallback: CustomerEngine | None = None
        self._diverged: int | None = None
        self.name = recorded.opening.engine  # whoever played the turn being recorded
        self.on_change: Callable[[Customer], None] | None = None  # set by the host when the world answers forms
        if isinstance(tracker, ChangesMind):
            tracker.on_change = self._changed

    @property
    def spent(self) -> Spend:
        """What this trial's customer cost in this run: nothing for the replayed replies, plus the fallback's."""
        total = Spend()
        fallback = getattr(self._fallback, "spent", None) if self._fallback is not None else None
        if isinstance(fallback, Spend):
            total.add(fallback)
        return total

    @property
    def diverged_at(self) -> int | None:
        """The agent message (from 1) the fallback first answered, or None while the replay holds."""
        return self._diverged

    def opening(self) -> str:
        """The recorded opening message."""
        return self._recorded.opening.reply.text

    def reply(self, message: str) -> Reply:
        """The recorded reply while the agent's message matches the recorded one; the fallback's from the first miss."""
        turn = len(self._heard)
        if self._fallback is None:
            said = normalised(message, self._ours)
            if turn < len(self._expected) and said == self._expected[turn]:
                again = self._recorded.exchanges[turn][1]
                self._keep_in_step(message)
                self.name = again.engine
                self._heard.append((message, again.reply))
                return again.reply
            self._take_over(turn)
        assert self._fallback is not None
        reply = self._fallback.reply(message)
        self.name = self._fallback.name
        if self._diverged == turn + 1:
            recorded = self._recorded.exchanges[turn][0] if turn < len(self._recorded.exchanges) else None
            reply = replace(reply, facts={**reply.facts, "diverged": {"recorded": recorded}})
        self._heard.append((message, reply))
        return reply

    def _keep_in_step(self, message: str) -> None:
        """Tell the tracking scripted customer the message, for its changes of mind; its reply is not used."""
        if self._tracker is None:
            return
        try:
            self._tracker.reply(message)
        except CustomerGone:  # the script had ended where the recorded customer went on: nothing more to track
            self._tracker = None

    def _take_over(self, turn: int) -> None:
        """Make the fallback and bring it to where the conversation is, before it answers message `turn + 1`."""
        self._tracker = None
        engine = self._make()
        if isinstance(engine, ChangesMind):
            engine.on_change = self._changed
        if isinstance(engine, Resumes):
            engine.resume(self.opening(), tuple(self._heard))
        else:
            engine.opening()
            for message, _ in self._heard:
                engine.reply(message)
        self._fallback, self._diverged = engine, turn + 1

    def _changed(self, customer: Customer) -> None:
        if self.on_change is not None:
            self.on_change(customer)


def engine(task: Task, trial: int, source: Source, make: Callable[[str], CustomerEngine]) -> ReplayCustomer:
    """The replayed customer of one trial of `task`; `make(name)` builds the fallback when it is needed."""
    tracker = ScriptedCustomer(task.customer, task.turn_limit) if task.customer.changes_mind else None
    return ReplayCustomer(recording(source, task.id, trial), lambda: make(source.fallback), tracker)

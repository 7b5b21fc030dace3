"""One conversation trial: the agent's messages checked and passed to the customer engine, each turn recorded.

A `Conversation` is shared by every request of its trial (the HTTP channel, the plugin's client), so one lock keeps
its turns in order: an agent turn is always followed by the customer's reply to it. A refused message (empty, too
long, after the end) raises `ChannelError` before anything is recorded or the engine hears of it.
"""

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from aftersales.testing.conversation.model import CustomerEngine, Reply, Speaker

T = TypeVar("T")
MAX_MESSAGE = 4000  # characters of one agent message, after stripping

Record = Callable[..., dict[str, Any]]  # record(speaker, text, **facts) -> the turn as the trace numbered it


@dataclass(frozen=True)
class ChannelError(Exception):
    """A message the channel refuses: an HTTP status, an error code, and what was wrong, the rule, what to do."""

    status: int
    code: str
    what: str
    rule: str
    todo: str

    @property
    def description(self) -> str:
        """The three parts as one text."""
        return f"{self.what} {self.rule} {self.todo}"

    def __str__(self) -> str:
        return self.description


def too_long(length: int) -> ChannelError:
    """A message over MAX_MESSAGE characters (also raised for a body too big to read)."""
    return ChannelError(
        413,
        "message_too_long",
        f"The message is {length} characters long.",
        f"A message to the customer is at most {MAX_MESSAGE} characters.",
        "Say it in fewer words, or over several messages, and send it again.",
    )


@dataclass(frozen=True)
class Said:
    """The customer's reply to one agent message, with where the conversation stands."""

    reply: Reply
    turn: int  # this agent message's number, from 1
    turns_left: int  # agent messages still allowed

    def as_json(self) -> dict[str, Any]:
        """The channel's 200 body."""
        return {
            "reply": self.reply.text,
            "ended": self.reply.ended,
            "reason": self.reply.reason,
            "turn": self.turn,
            "turns_left": self.turns_left,
        }


class Conversation:
    """The customer side of one trial: `open()` once, then `say(text)` per agent message, until it ends."""

    def __init__(self, engine: CustomerEngine, turn_limit: int, record: Record) -> None:
        if turn_limit < 1:
            raise ValueError(f"a conversation needs a turn limit of at least 1, got {turn_limit}")
        self.engine, self.turn_limit, self._record = engine, turn_limit, record
        self.turns = 0  # agent messages answered
        self.ended: Reply | None = None  # the reply that ended the conversation
        self.fault: str | None = None  # what went wrong in the harness (the engine or the trace), if anything
        self._lock = threading.Lock()

    @property
    def turns_left(self) -> int:
        """Agent messages still allowed."""
        return 0 if self.ended is not None else self.turn_limit - self.turns

    def open(self) -> str:
        """Record the customer's opening message (the first turn of the timeline) and return it."""
        with self._lock:
            text = self._guarded(self.engine.opening)
            self._turn("customer", Reply(text))
            return text

    def say(self, text: str) -> Said:
        """The customer's reply to the agent's message; ChannelError (nothing recorded) when it is refused."""
        message = text.strip()
        if not message:
            raise ChannelError(
                400,
                "empty_message",
                "The message is empty.",
                "A message to the customer holds at least one character that is not white space.",
                'Send what you want to say to the customer as {"message": "..."}.',
            )
        if len(message) > MAX_MESSAGE:
            raise too_long(len(message))
        with self._lock:
            if self.ended is not None:
                raise ChannelError(
                    409,
                    "conversation_ended",
                    f"The customer ended this conversation after turn {self.turns} ({self.ended.reason}).",
                    "Nothing can be said to a customer once the conversation has ended.",
                    "Do not send more messages: finish the task with what you have.",
                )
            reply = self._guarded(lambda: self.engine.reply(message))
            self.turns += 1
            if not reply.ended and self.turns >= self.turn_limit:
                reply = replace(reply, ended=True, reason="turn_limit")
            self._turn("agent", Reply(message))
            self._turn("customer", reply)
            if reply.ended:
                self.ended = reply
            return Said(reply, self.turns, self.turns_left)

    def _turn(self, speaker: Speaker, reply: Reply) -> None:
        facts: dict[str, Any] = {"engine": self.engine.name}
        if speaker == "customer":
            facts |= dict(reply.facts)  # the engine's further fields first: the channel's own always win
            facts |= {"revealed": reply.revealed, "miss": reply.miss, "ended": reply.ended, "reason": reply.reason}
            if reply.usage is not None:
                facts["usage"] = reply.usage.as_json()
        self._guarded(lambda: self._record(speaker, reply.text, **facts))

    def _guarded(self, step: Callable[[], T]) -> T:
        """Run an engine or trace step; a failure is the harness's, kept as the trial's fault."""
        try:
            return step()
        except Exception as problem:
            self.fault = self.fault or f"{type(problem).__name__}: {problem}"
            raise

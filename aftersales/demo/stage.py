"""The stage: the one case run the page shows, its event log, and the answers the person gives."""

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

import anyio
import anyio.abc

WAIT_SECONDS = 15.0  # how long a poll for new events is held open
Action = Literal["accept", "decline", "cancel"]  # what a person can do with a form


@dataclass(frozen=True)
class Answer:
    """The person's answer to one round: accept (with the fields of each question), decline or cancel."""

    action: Action
    contents: dict[str, dict[str, Any]] = field(default_factory=dict)


class Run:
    """One case on its revisions: everything that happens is an event, numbered in order."""

    def __init__(self, number: int, case: str, revisions: list[str]) -> None:
        self.id, self.case, self.revisions = f"run-{number}", case, revisions
        self.events: list[dict[str, Any]] = []
        self.scope = anyio.CancelScope()
        self.finished = anyio.Event()
        self._started = time.monotonic()
        self._changed = anyio.Event()
        self._asks: dict[str, tuple[anyio.Event, list[Answer]]] = {}

    def emit(self, event: dict[str, Any]) -> int:
        """Append an event; return its number."""
        # ms since the run started (durations on the page); at, the wall clock (compared with a round's expiry)
        at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        event = event | {"seq": len(self.events) + 1, "ms": round((time.monotonic() - self._started) * 1000), "at": at}
        self.events.append(event)
        self._changed.set()
        self._changed = anyio.Event()
        return int(event["seq"])

    async def ask(self, column: str, questions: list[dict[str, Any]], **details: Any) -> Answer:
        """Show the person one round of questions and wait for their answer."""
        ask = f"{column}/{len(self._asks) + 1}"
        done: tuple[anyio.Event, list[Answer]] = (anyio.Event(), [])
        self._asks[ask] = done
        self.emit({"type": "ask", "column": column, "ask": ask, "questions": questions, **details})
        await done[0].wait()
        answer = done[1][0]
        self.emit(
            {"type": "answered", "column": column, "ask": ask, "action": answer.action} | {"contents": answer.contents}
        )
        return answer

    def answer(self, ask: str, answer: Answer) -> bool:
        """Deliver the person's answer; False when that question is not waiting (answered, or unknown)."""
        waiting = self._asks.get(ask)
        if waiting is None or waiting[0].is_set():
            return False
        waiting[1].append(answer)
        waiting[0].set()
        return True

    async def changed(self) -> None:
        """Return once another event has been appended."""
        await self._changed.wait()


Player = Callable[[Run], Awaitable[None]]


class Stage:
    """Holds the current run; starting another (or resetting) stops the one before."""

    def __init__(self) -> None:
        self.run: Run | None = None
        self.numbers = 0
        self._group: anyio.abc.TaskGroup | None = None
        self._moved = anyio.Event()
        self.closing = False

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Runs live in this task group while the app runs; leaving it stops them."""
        async with anyio.create_task_group() as group:
            self._group = group
            try:
                yield
            finally:
                group.cancel_scope.cancel()
                self.wake()

    async def stop(self) -> None:
        """Stop the current run and wait until its clients have closed."""
        run = self.run
        if run is not None:
            run.scope.cancel()
            with anyio.move_on_after(10):
                await run.finished.wait()

    async def start(self, case: str, revisions: list[str], play: Player) -> Run:
        """Stop the current run, then start `play` for a new one."""
        await self.stop()
        self.numbers += 1
        run = Run(self.numbers, case, revisions)
        self.run = run
        self.wake()
        assert self._group is not None, "the stage is not running"
        self._group.start_soon(self._play, run, play)
        return run

    async def clear(self) -> None:
        """Stop the current run and show nothing."""
        await self.stop()
        self.run = None
        self.wake()

    def close(self) -> None:
        """The server is stopping: answer every poll now, and stop the run (its calls may wait for a person)."""
        self.closing = True
        if self.run is not None:
            # A 2025-11-25 call waiting for an answer is a response uvicorn would wait for until its graceful
            # timeout (forever in tests): the run's clients leave, and the server ends the call.
            self.run.scope.cancel()
        self.wake()

    def wake(self) -> None:
        """Release every poll waiting for news (a run started or ended, or the server is stopping)."""
        self._moved.set()
        self._moved = anyio.Event()

    async def news(self, run_id: str | None, after: int) -> tuple[Run | None, list[dict[str, Any]]]:
        """The current run and its events after `after` (all of them for another run); waits a while for some."""
        with anyio.move_on_after(WAIT_SECONDS):
            while not self.closing:
                run, moved = self.run, self._moved
                if run is not None and run.id != run_id:
                    return run, run.events
                if run is None and run_id is not None:
                    return None, []
                if run is not None and len(run.events) > after:
                    return run, run.events[after:]
                async with anyio.create_task_group() as group:

                    async def wake_on(signal: Callable[[], Awaitable[None]]) -> None:
                        await signal()
                        group.cancel_scope.cancel()

                    group.start_soon(wake_on, moved.wait)
                    if run is not None:
                        group.start_soon(wake_on, run.changed)
        return self.run, []

    async def _play(self, run: Run, play: Player) -> None:
        try:
            with run.scope:
                await play(run)
        finally:
            run.finished.set()
            self.wake()

"""The in-process host: the harness's own server on a loopback port, and a fresh world per trial.

`Host` opens a trial for a task (a world copied from the task's start, frozen at its clock, with deterministic
ids), hands out the trial's MCP URL and a token bound to the world, and afterwards the world's diff and trace. The
server runs in this process on its own thread, so the agent (any process) reaches it over HTTP.
"""

import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Awaitable, Iterator, Mapping
from concurrent.futures import Future
from contextlib import ExitStack, contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
from anyio.abc import TaskStatus
from starlette.applications import Starlette

from aftersales.domain.callers import ALL_SCOPES
from aftersales.settings import Settings
from aftersales.storage import migrate
from aftersales.testing.apps import PREFIX, Router, Served, serve_settings, with_overrides
from aftersales.testing.conversation.channel import Conversation
from aftersales.testing.conversation.endpoint import Channel
from aftersales.testing.conversation.model import ChangesMind, CustomerEngine
from aftersales.testing.customer import answer_question
from aftersales.testing.events import Trial, Trials, mark_faults
from aftersales.testing.hosts.interface import CALLER, TOKEN_TTL, TrialHost, TrialWorld
from aftersales.testing.pages import answer_on_page
from aftersales.testing.rows import insert_rows
from aftersales.testing.tasks import Customer, WorldStart
from aftersales.web import serving
from aftersales.web.serving import Server
from aftersales.worlds import inspect
from aftersales.worlds.model import World
from aftersales.worlds.service import Worlds
from aftersales.worlds.trace import Answer

# The harness serves many episodes at once for one caller id: limits meant for runaway loops in production would
# throttle trials against each other.
HARNESS = {
    "rate_read_per_minute": 1_000_000,
    "rate_read_burst": 100_000,
    "rate_write_per_minute": 1_000_000,
    "rate_write_burst": 100_000,
    "sessions_per_caller": 100_000,
    "worlds_max": 100_000,
    "worlds_open_engines": 64,
    "log_level": "WARNING",
}


def harness_settings(database_url: str | None, folder: Path, **changes: Any) -> Settings:
    """Settings for a harness: keys in `folder`, a control database (default a SQLite file there), worlds beside it."""
    values = {"data_dir": folder, "worlds_dir": folder / "worlds", **HARNESS, **changes}
    return Settings(database_url=database_url or control_url(folder), **values)


def control_url(folder: Path) -> str:
    """The harness's own control database in `folder`."""
    return f"sqlite:///{folder / 'control.db'}"


@contextmanager
def temporary_host(database_url: str | None = None, keep: bool = False, **changes: Any) -> Iterator["Host"]:
    """A Host whose keys, control database and worlds live in a new temporary folder (its `settings.data_dir`).

    The folder is removed when the host closes, however the run ends: done, failed, or interrupted (Ctrl-C; SIGTERM
    where the command turns it into an exit). With `keep` it stays, every world the run made in it.
    `changes` are settings of its server (a tool description set, say), for every world it makes.
    """
    folder = Path(tempfile.mkdtemp(prefix="aftersales-eval-"))
    try:
        with Host(harness_settings(database_url, folder, **changes), keep=keep) as host:
            yield host
    finally:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)


class Host(TrialHost):
    """Worlds and the server in this process: every task field works, worlds answer their own forms, trials talk."""

    channels = True

    def __init__(self, settings: Settings, keep: bool = False) -> None:
        self.settings = settings
        self.keep = keep  # leave every world made, for a person to look at afterwards
        self.trials: Trials = {}
        self.conversations: dict[str, Channel] = {}
        self._served: dict[tuple[tuple[str, Any], ...], Served] = {}
        self._starts: dict[str, World] = {}
        # Building a template migrates a database with Alembic; worlds are made one at a time (copies take ms).
        self._making = threading.RLock()
        self._stack = ExitStack()
        self._server: Server | None = None
        self._serving: Future[None] | None = None
        self.base_url = ""
        self.default = serve_settings(settings, self._answer, self.trials)
        migrate.upgrade(self.default.app.engine)
        self._served[()] = self.default

    @property
    def worlds(self) -> Worlds:
        """The worlds service (of the default App; every App shares the control database)."""
        return self.default.app.worlds

    def __enter__(self) -> "Host":
        self._portal = self._stack.enter_context(anyio.from_thread.start_blocking_portal())
        self._stop = self._portal.call(anyio.Event)
        self._portal.start_task(self._keep_running, self.default.web)
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        router = Router(self._route, self.conversations.get, self.default.app.caller_keys)
        config = serving.config(router, lifespan="off", log_level="warning", access_log=False)
        self._server = Server(config)
        self._serving = self._portal.start_task_soon(self._server.serve, [listener])
        self.base_url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        while not self._server.started:
            if self._serving.done():
                self._serving.result()
            time.sleep(0.01)
        return self

    def open(self, start: WorldStart, customer: Customer | None = None, label: str = "a test") -> TrialWorld:
        """A fresh world as `start` describes, routed and ready; `customer` answers its forms (else the client)."""
        with self._making:
            self._serve(dict(start.settings))
            world = self._new_world(start)
        self.trials[world.id] = Trial(world.id, start, self.advance_world, customer, label)
        token = self.worlds.token(world.id, CALLER, sorted(ALL_SCOPES), TOKEN_TTL)
        return TrialWorld(self.trials[world.id], f"{self.base_url}{PREFIX}{world.id}/mcp", token)

    def converse(self, trial: TrialWorld, engine: CustomerEngine, turn_limit: int) -> tuple[Conversation, str]:
        """Start the trial's conversation (its opening recorded as the first turn) at /worlds/<id>/customer."""
        world_id = trial.id
        conversation = Conversation(
            engine, turn_limit, lambda *turn, **facts: self.worlds.append_turn(world_id, *turn, **facts)
        )
        if trial.trial.customer is not None and isinstance(engine, ChangesMind):
            # The world answers its forms as the customer: as they change their mind, so do its answers.
            engine.on_change = lambda customer: self.answer_forms(trial, customer)
        conversation.open()
        self.conversations[world_id] = Channel(conversation, self.worlds.get(world_id).incarnation)
        return conversation, f"{self.base_url}{PREFIX}{world_id}/customer"

    def diff(self, trial: TrialWorld) -> dict[str, Any]:
        """The trial world against its start (format aftersales-world-diff/1)."""
        return inspect.compare(self.worlds, trial.id, "source")

    def trace(self, trial: TrialWorld) -> list[dict[str, Any]]:
        """The world's trace (aftersales-trace/1), each call whose answer the task dropped marked as a fault."""
        return mark_faults(self.worlds.trace(trial.id), trial.trial.lost, trial.trial.moved)

    def advance_world(self, world_id: str, by: timedelta) -> None:
        """Move a world's clock forward; every App's next request sees it."""
        self.worlds.advance(world_id, by)
        for served in self._apps():
            served.app.router.forget(world_id)

    def answer_forms(self, trial: TrialWorld, customer: Customer) -> None:
        """From now on the trial's world answers its forms as `customer` (the form answerer reads it per question)."""
        trial.trial.customer = customer

    def close_trial(self, trial: TrialWorld) -> None:
        """Stop answering for the trial's world, then drop it unless the host keeps worlds (audit written first)."""
        for served in self._apps():
            if "audit" in served.app.__dict__:
                served.app.audit.flush()
        self.trials.pop(trial.id, None)
        self.conversations.pop(trial.id, None)
        if not self.keep:
            self.worlds.drop(trial.id)
        for served in self._apps():
            served.app.router.forget(trial.id)

    def close(self) -> None:
        """Stop the server and drop every world this host made (unless it keeps them)."""
        if self._server is not None and self._serving is not None:
            for served in self._apps():
                served.web.state.close_streams()
            self._server.should_exit = True
            self._serving.result()
            self._portal.call(self._stop.set)
        self._stack.close()
        for world in [] if self.keep else self.worlds.registry.all():
            self.worlds.drop(world.id)
        for served in self._apps():
            served.app.close()

    def _apps(self) -> list[Served]:
        """Every App this host serves, as a list: a trial with settings of its own adds one from another thread."""
        return list(self._served.values())

    def _serve(self, overrides: dict[str, Any]) -> Served:
        key = tuple(sorted(overrides.items()))
        if key not in self._served:
            served = serve_settings(with_overrides(self.settings, overrides), self._answer, self.trials)
            self._portal.start_task(self._keep_running, served.web)
            self._served[key] = served
        return self._served[key]

    def _route(self, world_id: str) -> Served | None:
        trial = self.trials.get(world_id)
        return None if trial is None else self._served.get(tuple(sorted(trial.start.settings.items())))

    def _answer(self, world_id: str, question: Mapping[str, Any]) -> Answer | Awaitable[Answer]:
        """The worlds' FormAnswerer: a trial's customer answers its world's forms, when the world answers them.

        A URL question they answer on the page, which the trial's own web app serves.
        """
        trial, served = self.trials.get(world_id), self._route(world_id)
        if trial is None or trial.customer is None or served is None:
            return None
        if question.get("mode") == "url":
            return answer_on_page(trial.customer, question, served.web, lambda by: self.advance_world(world_id, by))
        return answer_question(trial.customer, question)

    def _new_world(self, start: WorldStart) -> World:
        # In-process trials run for whoever runs them, on their own files, as the command line does.
        if not start.rows:
            return self.worlds.create(start.source, "frozen", start.clock, deterministic=True, operator=True)
        key = start.model_dump_json(include={"source", "clock", "rows"})
        if key not in self._starts:
            made = self.worlds.create(start.source, "frozen", start.clock, deterministic=True, operator=True)
            insert_rows(self.worlds.engines.engine(made.location), start.rows, made.anchor_day)
            self.worlds.engines.close(made.location)
            self._starts[key] = made
        return self.worlds.fork(self._starts[key].id)

    async def _keep_running(self, web: Starlette, *, task_status: TaskStatus[None]) -> None:
        async with web.router.lifespan_context(web):
            task_status.started()
            await self._stop.wait()

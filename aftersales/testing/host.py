"""The harness's host: a worlds service, a server on a loopback port, and a fresh world per trial.

`Host` opens a trial for a task (a world copied from the task's start, frozen at its clock, with deterministic
ids), hands out the trial's MCP URL and a caller token, and afterwards the world's diff and trace; the server runs
in this process on its own thread, so the agent (any process) reaches it over HTTP.
"""

import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import uvicorn
from anyio.abc import TaskStatus
from starlette.applications import Starlette

from aftersales import clock
from aftersales.domain.callers import ALL_SCOPES
from aftersales.mcp.forms import FormAnswerer
from aftersales.security import tokens
from aftersales.settings import Settings
from aftersales.storage import migrate
from aftersales.storage.database import make_engine
from aftersales.testing.apps import PREFIX, Router, Served, serve_settings, with_overrides
from aftersales.testing.customer import ScriptedCustomer
from aftersales.testing.recorder import Trial
from aftersales.testing.rows import insert_rows
from aftersales.testing.tasks import Task, WorldStart
from aftersales.web.serving import Server
from aftersales.worlds import inspect
from aftersales.worlds.diff import diff
from aftersales.worlds.model import World
from aftersales.worlds.service import Worlds
from aftersales.worlds.snapshot import canonical, table_names
from aftersales.worlds.storage.rows import read_tables

CALLER = "agent"  # every trial's caller: the owner of its quotes and scope of its keys, the same in every world
TOKEN_TTL = timedelta(hours=12)
# The harness's server serves many episodes at once for one caller id: limits meant for runaway loops in
# production would throttle the trials against each other.
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


@dataclass(frozen=True)
class TrialWorld:
    """What an agent gets for one trial, and what the harness reads back."""

    trial: Trial
    url: str
    token: str

    @property
    def id(self) -> str:
        """The world's id."""
        return self.trial.world.id


def harness_settings(database_url: str | None = None, folder: Path | None = None, **changes: Any) -> Settings:
    """Settings for a harness: a control database (default a SQLite file in `folder`) and worlds beside it."""
    base = folder or Path(tempfile.mkdtemp(prefix="aftersales-eval-"))
    values = {"data_dir": base, "worlds_dir": base / "worlds", **HARNESS, **changes}
    return Settings(database_url=database_url or f"sqlite:///{base / 'control.db'}", **values)


class Host:
    """Worlds, the server and the trials it serves; use as a context manager (`with Host(settings) as host`)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._control = make_engine(settings.resolved_database_url)
        migrate.upgrade(self._control)
        self._keys: list[str] = []
        self.worlds = Worlds(settings, self._control)
        self.router = Router(served_for=self._served_for)
        self._served: dict[tuple[tuple[str, Any], ...], Served] = {}
        self._starts: dict[str, World] = {}
        self._origins: dict[str, dict[str, Any]] = {}
        # Building a template migrates a database with alembic, which is not safe on two threads at once; copies
        # are milliseconds, so trials make their worlds one at a time.
        self._making = threading.RLock()
        self._stack = ExitStack()
        self._portal: anyio.from_thread.BlockingPortal | None = None
        self._server: Server | None = None
        self._serving: Future[None] | None = None
        self.base_url = ""

    def __enter__(self) -> "Host":
        self._portal = self._stack.enter_context(anyio.from_thread.start_blocking_portal())
        self._stop = self._portal.call(anyio.Event)
        self.serve({})
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        self._server = Server(uvicorn.Config(self.router, lifespan="off", log_level="warning", access_log=False))
        self._serving = self._portal.start_task_soon(self._server.serve, [listener])
        self.base_url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        while not self._server.started:
            if self._serving.done():
                self._serving.result()
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def serve(self, overrides: dict[str, Any]) -> Served:
        """The App and web app for a task's setting overrides, started on first use."""
        key = tuple(sorted(overrides.items()))
        if key not in self._served:
            served = serve_settings(with_overrides(self.settings, overrides), self.worlds)
            assert self._portal is not None, "the host is not started"
            self._portal.start_task(self._keep_running, served.web)
            self._served[key] = served
            self._keys = served.app.caller_keys
        return self._served[key]

    def open_trial(self, task: Task, scripted_forms: bool = True) -> TrialWorld:
        """A fresh world for one trial of `task`, routed and ready; `scripted_forms`: the world answers its forms."""
        return self.open(task.world, ScriptedCustomer(task.customer) if scripted_forms else None, task.id)

    def open(self, start: WorldStart, answerer: FormAnswerer | None = None, label: str = "a test") -> TrialWorld:
        """A fresh world as `start` describes, routed and ready; `answerer` answers its forms (else the client)."""
        with self._making:
            served = self.serve(dict(start.settings))
            world = self._new_world(start)
        trial = Trial(start=start, world=world, advance=self.worlds.advance, answerer=answerer, label=label)
        self.router.trials[world.id] = trial
        token = tokens.issue(served.app.caller_keys, CALLER, sorted(ALL_SCOPES), TOKEN_TTL, clock.wall())
        return TrialWorld(trial, f"{self.base_url}{PREFIX}{world.id}/mcp", token)

    def diff(self, trial: TrialWorld) -> dict[str, Any]:
        """The trial world against its start (format aftersales-world-diff/1)."""
        world = trial.trial.world
        key = str(world.origin)
        # A world's origin (a shared template, or a fork's sealed copy of its start) never changes: read it once.
        if key not in self._origins:
            with self.worlds.places.reading(world.origin) as engine:
                self._origins[key] = canonical(read_tables(engine, table_names(False)), world.anchor_day, False)
        after = canonical(
            read_tables(self.worlds.engines.engine(world.location), table_names(False)), world.anchor_day, False
        )
        return diff(self._origins[key], after, f"the start of {trial.trial.label}", f"world {world.id}")

    def snapshot_hash(self, trial: TrialWorld) -> str:
        """The hash of the trial world's canonical snapshot."""
        return inspect.world_hash(self.worlds, trial.id)

    def advance(self, trial: TrialWorld, by: timedelta) -> None:
        """Move a trial world's clock forward."""
        trial.trial.world = self.worlds.advance(trial.id, by)

    def close_trial(self, trial: TrialWorld) -> None:
        """Stop routing to the trial's world and drop it."""
        self.router.trials.pop(trial.id, None)
        self.worlds.drop(trial.id)

    def close(self) -> None:
        """Stop the server and drop every world this host made."""
        if self._server is not None and self._serving is not None:
            for served in self._served.values():
                served.web.state.close_streams()
            self._server.should_exit = True
            self._serving.result()
        if self._portal is not None:
            self._portal.call(self._stop.set)
        self._stack.close()
        for served in self._served.values():
            served.app.close()
        for world in self.worlds.registry.all():
            self.worlds.drop(world.id)
        self.worlds.close()
        self._control.dispose()

    def _new_world(self, start: WorldStart) -> World:
        if not start.rows:
            return self.worlds.create(start.source, "frozen", start.clock, deterministic=True)
        key = start.model_dump_json(include={"source", "clock", "rows"})
        if key not in self._starts:
            made = self.worlds.create(start.source, "frozen", start.clock, deterministic=True)
            insert_rows(self.worlds.engines.engine(made.location), start.rows, made.anchor_day)
            self.worlds.engines.close(made.location)
            self._starts[key] = made
        return self.worlds.fork(self._starts[key].id)

    def _served_for(self, trial: Trial) -> Served:
        return self._served[tuple(sorted(trial.start.settings.items()))]

    async def _keep_running(self, web: Starlette, *, task_status: TaskStatus[None]) -> None:
        async with web.router.lifespan_context(web):
            task_status.started()
            await self._stop.wait()


@contextmanager
def hosting(settings: Settings | None = None) -> Iterator[Host]:
    """A started host on `settings` (a private SQLite harness by default)."""
    with Host(settings or harness_settings()) as host:
        yield host

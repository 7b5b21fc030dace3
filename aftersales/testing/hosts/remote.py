"""A host on a running aftersales server: trial worlds made, read and dropped through its /admin/worlds API.

Any server serving the worlds admin API (AFTERSALES_WORLDS_ADMIN) will do, with a token holding `worlds:admin`: one
already running (`--aftersales-url`), or one the plugin starts (`testing/servers.py`). A world there is made from a
source and a frozen clock. What only the harness's own server can do is refused before any world is made, naming the
task field, rather than quietly run differently: setting overrides (a running server has one set of settings), extra
rows (written straight into the world's database file), events (played by middleware the harness installs in its
server) and forms the world answers itself (no API registers a scripted customer with a running server).
"""

import threading
from collections.abc import Callable
from contextlib import suppress
from datetime import timedelta
from typing import Any, Self, TypeVar

import httpx2

from aftersales.domain.callers import ALL_SCOPES
from aftersales.testing.events import Trial
from aftersales.testing.hosts.interface import CALLER, TOKEN_TTL, TrialHost, TrialWorld
from aftersales.testing.tasks import Customer, WorldStart
from aftersales.worlds.client import WorldsApiError, WorldsClient

T = TypeVar("T")
# A trial world's lease on a running server: far longer than any one trial, so the worlds of a harness that crashed
# (and never dropped them) stop counting against the server's AFTERSALES_WORLDS_MAX within the hour.
LEASE = timedelta(hours=1)
IN_PROCESS_ONLY = {
    "settings": "a running server has one set of settings for every world",
    "rows": "extra rows are written straight into the world's database, which only the harness's own server reaches",
    "events": "events are played by middleware the harness installs in its own server",
    "client": "the client a task plays is set by middleware the harness installs in its own server",
}
WORLD_FORMS = (
    'forms answered by the world (forms="world", the default of aftersales.run, or world.answer_forms_as): '
    "no API registers a scripted customer with a running server"
)


class ServerUnavailable(Exception):
    """The server cannot host the harness's worlds: unreachable, no admin API, or a token without worlds:admin."""


class NeedsInProcessServer(Exception):
    """A world start asks for what only the harness's own server (in this process) can do."""


def remote_refusal(start: WorldStart, customer: Customer | None, label: str = "this test") -> str | None:
    """Why a remote server cannot make this world (what, the rule, what to do), or None when it can."""
    reasons = [f"world.{name} ({why})" for name, why in IN_PROCESS_ONLY.items() if getattr(start, name)]
    if customer is not None:
        reasons.append(WORLD_FORMS)
    if not reasons:
        return None
    instead = ', or pass forms="client" and answer with world.elicitation_callback()' if customer is not None else ""
    return (
        f"{label} needs the in-process server for {'; '.join(reasons)}. A running server "
        "(--aftersales-url, or --aftersales-server subprocess) makes worlds from a source and a frozen clock only. "
        f"Run it on the in-process server (leave those options out){instead}."
    )


class RemoteHost(TrialHost):
    """Trial worlds on the server at `url`, through its admin API with `admin_token` (scope worlds:admin)."""

    def __init__(self, url: str, admin_token: str) -> None:
        self.base_url = url.rstrip("/").removesuffix("/mcp")  # the URL `serve` prints ends in /mcp
        self.client = WorldsClient(self.base_url, admin_token)
        self._made: set[str] = set()
        self._lock = threading.Lock()

    def __enter__(self) -> Self:
        try:
            self._call(self.client.list)  # reachable, serving the admin API, and the token holds worlds:admin
        except BaseException:
            self.client.close()
            raise
        return self

    def open(self, start: WorldStart, customer: Customer | None = None, label: str = "a test") -> TrialWorld:
        """A fresh world from `start`'s source, frozen at its clock, with deterministic ids and a token bound to it."""
        refusal = remote_refusal(start, customer, label)
        if refusal is not None:
            raise NeedsInProcessServer(refusal)
        made = self._call(
            lambda: self.client.create(
                source=start.source,
                clock="frozen",
                at=start.clock,
                deterministic=True,
                caller=CALLER,
                scopes=sorted(ALL_SCOPES),
                ttl=f"{int(TOKEN_TTL.total_seconds())}s",
                lease=f"{int(LEASE.total_seconds())}s",
            )
        )
        with self._lock:
            self._made.add(made.id)
        return TrialWorld(Trial(made.id, start, self.advance_world, None, label), made.url, made.token)

    def diff(self, trial: TrialWorld) -> dict[str, Any]:
        """The trial world against its start, as the server computes it."""
        return self._call(lambda: self.client.diff(trial.id))

    def trace(self, trial: TrialWorld) -> list[dict[str, Any]]:
        """The world's trace, as the server recorded it."""
        return self._call(lambda: self.client.trace(trial.id))

    def advance_world(self, world_id: str, by: timedelta) -> None:
        """Move a world's clock forward by whole seconds (what the API takes)."""
        if by % timedelta(seconds=1) or by <= timedelta(0):
            raise ValueError(f"{by} cannot be sent to a running server: advance its clock by whole seconds")
        self._call(lambda: self.client.advance(world_id, f"{int(by.total_seconds())}s"))

    def answer_forms(self, trial: TrialWorld, customer: Customer) -> None:
        """Refused: a running server has no API for a world that answers its own forms."""
        raise NeedsInProcessServer(remote_refusal(WorldStart(), customer, trial.trial.label))

    def close_trial(self, trial: TrialWorld) -> None:
        """Drop the trial's world."""
        self._call(lambda: self.client.drop(trial.id))
        with self._lock:
            self._made.discard(trial.id)

    def close(self) -> None:
        """Drop the worlds still left (a test that failed mid-trial), then close the HTTP client."""
        try:
            for world_id in sorted(self._made):
                # Gone already, or the server is: either way nothing of ours is left to clean.
                with suppress(WorldsApiError, httpx2.TransportError):
                    self.client.drop(world_id)
        finally:
            self.client.close()

    def _call(self, work: Callable[[], T]) -> T:
        try:
            return work()
        except httpx2.TransportError as error:
            raise ServerUnavailable(
                f"No aftersales server answers at {self.base_url} ({error or type(error).__name__}). The plugin's "
                "remote mode drives worlds through a running server's /admin/worlds API. Start the server "
                "(AFTERSALES_WORLDS_ADMIN=true aftersales serve), or correct --aftersales-url (AFTERSALES_TEST_URL)."
            ) from None
        except WorldsApiError as error:
            # A 404 in JSON is about a world; a 404 in text means the admin routes themselves are not there.
            if error.status in (401, 403) or (error.status == 404 and error.kind == "http_error"):
                raise ServerUnavailable(self._refused(error)) from None
            raise

    def _refused(self, error: WorldsApiError) -> str:
        if error.status == 404:
            return (
                f"The server at {self.base_url} serves no worlds admin API (404 at /admin/worlds). The plugin's "
                "remote mode needs it; a server serves it when AFTERSALES_WORLDS_ADMIN=true (by default in "
                "development only). Restart the server with it, or point --aftersales-url at one that serves it."
            )
        return (
            f"The server at {self.base_url} refused the admin token of --aftersales-admin-token "
            f"(AFTERSALES_TEST_ADMIN_TOKEN): {error.status} {error.kind}. {error.message}"
        )

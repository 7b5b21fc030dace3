"""A small client for the worlds admin API (/admin/worlds), for tests and harnesses written in Python.

    with WorldsClient("http://127.0.0.1:8000", admin_token) as worlds:
        world = worlds.create(clock="frozen", at="2026-12-01T09:00:00Z", deterministic=True)
        ...  # an agent calls world.url with world.token
        world.advance("31m")
        print(world.diff()["summary"], world.hash())
        world.drop()

It uses httpx2, the HTTP client the MCP SDK already brings. Every error the API answers is a WorldsApiError with
the status, the kind and the three-part message.
"""

import json
from dataclasses import dataclass, field
from datetime import datetime
from types import TracebackType
from typing import Any, Self

import httpx2

Scopes = list[str]  # module-level aliases: inside WorldsClient, `list` is the method
Entries = list[dict[str, Any]]


class WorldsApiError(Exception):
    """The admin API refused a request; `message` says what was wrong, the rule, and what to do."""

    def __init__(self, status: int, kind: str, message: str) -> None:
        self.status, self.kind, self.message = status, kind, message
        super().__init__(f"{status} {kind}: {message}")


@dataclass
class World:
    """A world made through the API: where to connect an MCP client, with which token, and what to ask of it."""

    id: str
    token: str
    url: str  # the MCP endpoint; requests carrying `token` run in this world
    client: "WorldsClient" = field(repr=False)
    info: dict[str, Any] = field(default_factory=dict, repr=False)  # the API's answer when it was made

    def diff(
        self, against: str | dict[str, Any] = "source", audit: bool = False, tables: list[str] | None = None
    ) -> dict[str, Any]:
        """What changed: against its source, another world's id, or a snapshot; in some tables only, if named."""
        return self.client.diff(self.id, against, audit, tables)

    def snapshot(self, audit: bool = False) -> dict[str, Any]:
        """Its canonical snapshot."""
        return self.client.snapshot(self.id, audit)

    def hash(self, audit: bool = False) -> str:
        """The hash of its canonical snapshot."""
        return self.client.hash(self.id, audit)

    def advance(self, by: str) -> dict[str, Any]:
        """Move its clock forward ("31m", "8d")."""
        return self.client.advance(self.id, by)

    def set_clock(self, to: str | datetime) -> dict[str, Any]:
        """Make its clock show `to` now."""
        return self.client.set_clock(self.id, to)

    def trace(self) -> list[dict[str, Any]]:
        """Every tool call made in it, in order."""
        return self.client.trace(self.id)

    def reset(self) -> dict[str, Any]:
        """Put it back as it was created."""
        return self.client.reset(self.id)

    def drop(self) -> None:
        """Remove it."""
        self.client.drop(self.id)

    def token_for(self, caller: str, scopes: list[str] | None = None, ttl: str | None = None) -> str:
        """Another token bound to it."""
        return self.client.token(self.id, caller, scopes, ttl)

    def fork(self, **options: Any) -> "World":
        """A new world holding its current state."""
        return self.client.fork(self.id, **options)


class WorldsClient:
    """The admin API of one server, with an admin token (scope worlds:admin)."""

    def __init__(
        self, base_url: str, admin_token: str, http: httpx2.Client | None = None, timeout: float = 120
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._owned = http is None
        self._http = http or httpx2.Client(timeout=timeout)
        self._headers = {"Authorization": f"Bearer {admin_token}"}

    def create(
        self,
        source: str = "baseline",
        clock: str | None = None,
        at: str | datetime | None = None,
        deterministic: bool = False,
        seed: int | None = None,
        world_id: str | None = None,
        caller: str = "agent",
        scopes: Scopes | None = None,
        ttl: str | None = None,
        tool_descriptions: dict[str, Any] | str | None = None,
        lease: str | None = None,
    ) -> World:
        """A new world from the baseline or a dataset file in the server's AFTERSALES_WORLDS_DATASETS_DIR.

        `tool_descriptions` is a description set the world serves: the set itself (a file's YAML, read), or the name
        of a set file in that folder.
        """
        body = _options(clock, at, deterministic, seed, world_id, caller, scopes, ttl, lease) | {"from": source}
        if tool_descriptions is not None:
            body["tool_descriptions"] = tool_descriptions
        return self._world(self._call("POST", "", body))

    def fork(
        self,
        world_id: str,
        clock: str | None = None,
        at: str | datetime | None = None,
        deterministic: bool = False,
        seed: int | None = None,
        new_id: str | None = None,
        caller: str = "agent",
        scopes: Scopes | None = None,
        ttl: str | None = None,
        lease: str | None = None,
    ) -> World:
        """A new world holding another's current state."""
        body = _options(clock, at, deterministic, seed, new_id, caller, scopes, ttl, lease)
        return self._world(self._call("POST", f"/{world_id}/fork", body))

    def list(self) -> Entries:
        """Every world."""
        worlds: Entries = self._call("GET", "")["worlds"]
        return worlds

    def get(self, world_id: str) -> dict[str, Any]:
        """One world as the API shows it."""
        return dict(self._call("GET", f"/{world_id}"))

    def reset(self, world_id: str) -> dict[str, Any]:
        """Put a world back as it was created."""
        return dict(self._call("POST", f"/{world_id}/reset"))

    def drop(self, world_id: str) -> None:
        """Remove a world."""
        self._call("DELETE", f"/{world_id}")

    def advance(self, world_id: str, by: str) -> dict[str, Any]:
        """Move a world's clock forward."""
        return dict(self._call("POST", f"/{world_id}/clock", {"advance": by}))

    def set_clock(self, world_id: str, to: str | datetime) -> dict[str, Any]:
        """Make a world's clock show `to` now."""
        return dict(self._call("POST", f"/{world_id}/clock", {"set": _iso(to)}))

    def snapshot(self, world_id: str, audit: bool = False) -> dict[str, Any]:
        """A world's canonical snapshot."""
        return dict(self._call("GET", f"/{world_id}/snapshot", params={"audit": str(audit).lower()}))

    def hash(self, world_id: str, audit: bool = False) -> str:
        """The hash of a world's canonical snapshot."""
        return str(self._call("GET", f"/{world_id}/hash", params={"audit": str(audit).lower()})["hash"])

    def diff(
        self,
        world_id: str,
        against: str | dict[str, Any] = "source",
        audit: bool = False,
        tables: Scopes | None = None,
    ) -> dict[str, Any]:
        """A world against its source, another world's id, or a snapshot (a dict); in some tables only, if named."""
        if isinstance(against, dict):
            return dict(self._call("POST", f"/{world_id}/diff", against))
        params = {"against": against, "audit": str(audit).lower()} | ({"tables": ",".join(tables)} if tables else {})
        return dict(self._call("GET", f"/{world_id}/diff", params=params))

    def token(self, world_id: str, caller: str = "agent", scopes: Scopes | None = None, ttl: str | None = None) -> str:
        """A token bound to a world."""
        body = {"caller": caller} | ({"scopes": scopes} if scopes else {}) | ({"ttl": ttl} if ttl else {})
        return str(self._call("POST", f"/{world_id}/tokens", body)["token"])

    def trace(self, world_id: str) -> Entries:
        """Every tool call made in a world, in order (aftersales-trace/1 entries)."""
        text = self._send("GET", f"/{world_id}/trace").text
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def close(self) -> None:
        """Close the HTTP client, if this object made it."""
        if self._owned:
            self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def _world(self, answer: dict[str, Any]) -> World:
        return World(id=answer["id"], token=answer["token"], url=answer["mcp_url"], client=self, info=answer)

    def _call(
        self, method: str, path: str, body: dict[str, Any] | None = None, params: dict[str, str] | None = None
    ) -> Any:
        response = self._send(method, path, body, params)
        return None if response.status_code == 204 else response.json()

    def _send(
        self, method: str, path: str, body: dict[str, Any] | None = None, params: dict[str, str] | None = None
    ) -> httpx2.Response:
        url = f"{self.base_url}/admin/worlds{path}"
        response = self._http.request(method, url, json=body, params=params, headers=self._headers)
        if response.status_code >= 400:
            try:
                problem = response.json()
                kind, message = str(problem.get("error")), str(problem.get("message"))
            except ValueError:
                kind, message = "http_error", response.text[:500]
            raise WorldsApiError(response.status_code, kind, message)
        return response


def _options(
    clock: str | None,
    at: str | datetime | None,
    deterministic: bool,
    seed: int | None,
    world_id: str | None,
    caller: str,
    scopes: Scopes | None,
    ttl: str | None,
    lease: str | None = None,
) -> dict[str, Any]:
    given = {"clock": clock, "at": _iso(at) if at is not None else None, "seed": seed, "id": world_id, "ttl": ttl}
    given["lease"] = lease
    body = {name: value for name, value in given.items() if value is not None}
    return body | {"deterministic": deterministic, "caller": caller} | ({"scopes": scopes} if scopes else {})


def _iso(moment: str | datetime) -> str:
    return moment if isinstance(moment, str) else moment.isoformat()

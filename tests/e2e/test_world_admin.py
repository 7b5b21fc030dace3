"""The worlds admin API over HTTP, driven through its Python client: every operation, its guard and its errors."""

import threading
from datetime import timedelta

import anyio
import httpx
import pytest
from sqlalchemy.engine import make_url

from aftersales.domain.callers import ALL_SCOPES
from aftersales.web.app import create_web_app
from aftersales.worlds.client import WorldsApiError
from aftersales.worlds.model import ADMIN_SCOPE
from aftersales.worlds.service import Worlds
from aftersales.worlds.snapshot import digest
from tests.support.apps import app_without_database
from tests.support.clients import bearer_token, connect_http
from tests.support.episodes import QUERY
from tests.support.serve import new_key
from tests.support.worlds import PINNED

pytestmark = [pytest.mark.anyio, pytest.mark.http]
SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # the HTTP layer's rules, not storage's


async def test_the_admin_api_runs_every_world_operation_and_the_client_reads_each_answer(served_worlds, stories):
    admin = served_worlds.admin
    world = admin.create(clock="frozen", at="2026-12-01T09:00:00Z", deterministic=True, seed=3, world_id="w-admin")
    assert world.id == "w-admin" and world.url == f"{served_worlds.url}/mcp"
    assert world.info["clock"] == {"mode": "frozen", "now": "2026-12-01T09:00:00Z"} and world.info["seed"] == 3
    assert [listed["id"] for listed in admin.list()] == ["w-admin"] and admin.get("w-admin")["state"] == "ready"
    assert world.advance("31m")["clock"]["now"] == "2026-12-01T09:31:00Z"
    assert world.set_clock("2026-12-09T09:00:00Z")["clock"]["now"] == "2026-12-09T09:00:00Z"
    fork = world.fork(caller="agent-2")
    assert fork.id != world.id and fork.info["clock"]["now"] == "2026-12-09T09:00:00Z"  # a fork keeps the clock

    other_caller = world.token_for("agent-3", scopes=["tickets:read"], ttl="1h")
    ticket = stories["ticket_in_repair"]["ticket_id"]
    async with connect_http(served_worlds.url, other_caller) as client:
        assert not (await client.call_tool(QUERY, {"ticket_id": ticket})).is_error

    snapshot = world.snapshot()
    assert snapshot["format"] == "aftersales-world-snapshot/1" and world.hash() == digest(snapshot)
    assert world.diff()["identical"] and world.diff(against=fork.id)["identical"]
    assert world.diff(against=snapshot)["identical"]
    served_worlds.app.audit.flush()
    assert world.diff(audit=True)["summary"] == {"tool_calls": {"added": 1, "removed": 0, "changed": 0}}
    assert [(entry["caller"], entry["tool"]) for entry in world.trace()] == [("agent-3", QUERY)]

    assert world.reset()["clock"]["now"] == "2026-12-01T09:00:00Z" and world.trace() == []
    world.drop()
    with pytest.raises(WorldsApiError) as gone:
        admin.get("w-admin")
    assert gone.value.status == 404 and gone.value.kind == "unknown_world"
    assert 'There is no world "w-admin".' in gone.value.message and [w["id"] for w in admin.list()] == [fork.id]


@SQLITE_ONLY
async def test_the_admin_api_opens_only_to_tokens_with_the_worlds_admin_scope(served_worlds):
    keys, url = served_worlds.app.caller_keys, f"{served_worlds.url}/admin/worlds"
    tool_token = bearer_token(keys, "support-bot", ALL_SCOPES)
    async with httpx.AsyncClient() as http:
        missing = await http.get(url)
        forged = await http.get(url, headers={"Authorization": "Bearer not-a-token"})
        tools_only = await http.get(url, headers={"Authorization": f"Bearer {tool_token}"})
        admitted = await http.get(url, headers={"Authorization": f"Bearer {bearer_token(keys, 'h', [ADMIN_SCOPE])}"})
    assert [missing.status_code, forged.status_code, tools_only.status_code, admitted.status_code] == [
        401,
        401,
        403,
        200,
    ]
    assert missing.json()["error"] == forged.json()["error"] == "invalid_token"
    assert "token issue --caller harness --scopes worlds:admin" in missing.json()["message"]
    assert "This server verifies tokens with the key" in forged.json()["message"]  # and where it keeps it
    assert "a token signed with other keys is refused" in forged.json()["message"]
    assert (
        tools_only.json()["error"] == "insufficient_scope"
        and "needs the worlds:admin scope" in tools_only.json()["message"]
    )
    assert admitted.json() == {"worlds": []}


@SQLITE_ONLY
async def test_the_admin_api_answers_mistakes_with_json_naming_what_was_wrong_the_rule_and_what_to_do(served_worlds):
    admin, base = served_worlds.admin, f"{served_worlds.url}/admin/worlds"
    world = admin.create(at=PINNED)
    headers = {"Authorization": f"Bearer {bearer_token(served_worlds.app.caller_keys, 'h', [ADMIN_SCOPE])}"}
    async with httpx.AsyncClient(headers=headers) as http:
        answers = {
            "not json": await http.post(base, content=b"{clock: frozen"),
            "unknown field": await http.post(base, json={"clok": "frozen"}),
            "both moves": await http.post(
                f"{base}/{world.id}/clock", json={"advance": "1m", "set": "2027-01-01T00:00:00Z"}
            ),
            "backwards": await http.post(f"{base}/{world.id}/clock", json={"advance": 0}),
            "bad time": await http.post(f"{base}/{world.id}/clock", json={"set": "tomorrow"}),
            "file path": await http.get(f"{base}/{world.id}/diff", params={"against": "/etc/passwd"}),
            "not a snapshot": await http.post(f"{base}/{world.id}/diff", json={"tables": {}}),
            "bad scopes": await http.post(f"{base}/{world.id}/tokens", json={"scopes": ["tickets:delete"]}),
            "bad caller": await http.post(f"{base}/{world.id}/tokens", json={"caller": "no spaces allowed"}),
            "trace shape": await http.get(f"{base}/{world.id}/trace", params={"format": "xml"}),
            "unknown world": await http.post(f"{base}/w-nowhere/reset"),
            "bad id": await http.post(base, json={"id": "Has Capitals"}),
        }
    statuses = {name: answer.status_code for name, answer in answers.items()}
    assert statuses == {name: 404 if name == "unknown world" else 400 for name in answers}
    for name, answer in answers.items():
        body = answer.json()
        assert set(body) == {"error", "message"} and body["error"] in ("invalid_request", "unknown_world"), name
        assert body["message"].count(". ") >= 2 or body["message"].count(".") >= 3, (name, body["message"])
        assert "Traceback" not in body["message"] and "pydantic" not in body["message"].lower()
    assert "'/etc/passwd' is neither `source` nor a world id" in answers["file path"].json()["message"]
    assert "clok" in answers["unknown field"].json()["message"]


async def test_the_admin_api_never_copies_the_servers_own_database_or_any_other(served_worlds, empty_url):
    serving = served_worlds.app.settings.resolved_database_url
    named = [serving, serving.removeprefix("sqlite:///")] if serving.startswith("sqlite") else [serving]
    for source in named:
        with pytest.raises(WorldsApiError) as refused:
            served_worlds.admin.create(source=source, at=PINNED)
        assert (refused.value.status, refused.value.kind) == (400, "invalid_request")
        message = refused.value.message
        assert message.startswith('"from"') and "is the database this server serves" in message
        password = make_url(serving).password
        assert password is None or str(password) not in message
        assert 'comes from "baseline", a dataset file in' in message
    with pytest.raises(WorldsApiError) as other:
        served_worlds.admin.create(source=empty_url, at=PINNED)
    assert other.value.status == 400 and "is a database, not a dataset file" in other.value.message
    assert served_worlds.admin.list() == []


@pytest.mark.parametrize(
    ("env", "enabled", "status"),
    [("development", None, 401), ("production", None, 404), ("production", True, 401), ("development", False, 404)],
)
async def test_the_admin_api_is_served_in_development_and_in_production_only_when_enabled(
    tmp_path, env, enabled, status
):
    keys = {"secret_keys": new_key(), "state_keys": new_key()}
    app = app_without_database(tmp_path, env=env, worlds_admin=enabled, **keys)
    transport = httpx.ASGITransport(app=create_web_app(app))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        assert (await http.get("/admin/worlds")).status_code == status
    app.close()


@SQLITE_ONLY
async def test_a_world_being_made_does_not_hold_up_other_requests(served_worlds, monkeypatch):
    started, release = threading.Event(), threading.Event()
    original = Worlds.create

    def slow_create(self, *args, **kwargs):
        started.set()
        release.wait(30)  # as long as a large dataset takes to copy
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Worlds, "create", slow_create)
    async with httpx.AsyncClient(base_url=served_worlds.url, timeout=30) as http, anyio.create_task_group() as tasks:
        made = {}

        async def create() -> None:
            made["answer"] = await http.post(
                "/admin/worlds", json={}, headers={"Authorization": f"Bearer {admin_token(served_worlds)}"}
            )

        tasks.start_soon(create)
        await anyio.to_thread.run_sync(started.wait, 10)
        with anyio.fail_after(2):
            health = await http.get("/healthz")
        release.set()
    assert health.status_code == 200 and made["answer"].status_code == 201


def admin_token(served) -> str:
    return bearer_token(served.app.caller_keys, "harness", [ADMIN_SCOPE], timedelta(minutes=5))

"""Caller authentication: bearer tokens over HTTP and scopes in the tools, through the real MCP client."""

import logging
from datetime import timedelta

import httpx
import pytest

from aftersales.cli.main import main
from aftersales.domain.callers import READ, Caller
from tests.support.clients import bearer_token, connect, connect_http

pytestmark = pytest.mark.anyio
TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


async def list_tools_with(http_url: str, headers: dict[str, str]) -> httpx.Response:
    """POST a tools/list to /mcp with `headers` and nothing else."""
    async with httpx.AsyncClient() as http:
        return await http.post(f"{http_url}/mcp", headers=headers, json=TOOLS_LIST)


async def test_a_caller_without_the_scope_gets_a_tool_error_naming_it(server):
    async with connect(server, caller=Caller("nobody", frozenset())) as client:
        result = await client.call_tool("after_sales_query_ticket", {"ticket_id": "T-2026-0001"})
    assert result.is_error and "lacks the scope tickets:read" in result.content[0].text


async def test_over_http_a_request_without_a_token_is_401_with_a_bearer_challenge(http_url):
    answer = await list_tools_with(http_url, {})
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"].startswith("Bearer ")
    assert "aftersales token issue" in answer.json()["what_to_do"]


@pytest.mark.parametrize("bad", ["not-a-token", "eyJzdWIiOiJ4In0.forged"])
async def test_over_http_a_malformed_or_forged_token_is_401(http_url, bad):
    answer = await list_tools_with(http_url, {"Authorization": f"Bearer {bad}"})
    assert answer.status_code == 401 and "not signed by this server" in answer.json()["error_description"]


async def test_a_token_issued_with_another_data_dir_is_401_naming_the_data_dir_the_server_uses(
    http_url, app, tmp_path, monkeypatch, capsys
):
    assert app.settings.secret_keys is None  # development: the server's key is the one generated in its data dir
    monkeypatch.setenv("AFTERSALES_DATA_DIR", str(tmp_path / "elsewhere"))
    assert main(["token", "issue", "--caller", "support-bot"]) == 0
    foreign = capsys.readouterr().out.strip()
    answer = await list_tools_with(http_url, {"Authorization": f"Bearer {foreign}"})
    assert answer.status_code == 401 and "not signed by this server" in answer.json()["error_description"]
    what_to_do = answer.json()["what_to_do"]
    assert f"the key kept in its data dir, {app.settings.data_dir}" in what_to_do
    assert "`aftersales token issue --caller NAME` run with the same data dir (AFTERSALES_DATA_DIR)" in what_to_do
    assert str(tmp_path / "elsewhere") not in what_to_do


@pytest.mark.settings(secret_keys="k" * 40)
async def test_with_configured_keys_a_foreign_token_is_401_naming_the_setting_and_no_folder(http_url, app):
    foreign = bearer_token(["o" * 40], "support-bot", [READ])
    answer = await list_tools_with(http_url, {"Authorization": f"Bearer {foreign}"})
    what_to_do = answer.json()["what_to_do"]
    assert answer.status_code == 401 and "the keys in AFTERSALES_SECRET_KEYS" in what_to_do
    assert "run with the same AFTERSALES_SECRET_KEYS" in what_to_do and str(app.settings.data_dir) not in what_to_do


async def test_over_http_an_expired_token_is_401(http_url, issue_token):
    expired = issue_token(ttl=timedelta(seconds=-1))
    answer = await list_tools_with(http_url, {"Authorization": f"Bearer {expired}"})
    assert answer.status_code == 401 and "expired" in answer.json()["error_description"]


async def test_a_token_from_the_cli_works_over_http_and_is_never_logged_or_returned(
    http_url, app, stories, capsys, caplog, monkeypatch
):
    monkeypatch.setenv("AFTERSALES_DATA_DIR", str(app.settings.data_dir))
    assert main(["token", "issue", "--caller", "support-bot"]) == 0
    token = capsys.readouterr().out.strip()
    caplog.set_level(logging.DEBUG)
    async with connect_http(http_url, token) as client:
        result = await client.call_tool(
            "after_sales_estimate_refund",
            {"order_id": stories["vip_laptop_recent"]["order_id"], "line_no": 1, "reason_code": "defective"},
        )
    assert not result.is_error
    assert token not in caplog.text and token not in result.content[0].text
    assert app.caller_keys[0] not in caplog.text

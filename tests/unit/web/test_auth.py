"""BearerAuth remembers a verified token with its principal, and still refuses it from the instant it expires."""

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from freezegun import freeze_time
from mcp.server.auth.middleware.auth_context import get_access_token
from starlette.types import Receive, Scope, Send

from aftersales.security.tokens import issue
from aftersales.web.auth import BearerAuth

KEY = "k" * 40
T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

pytestmark = pytest.mark.anyio


class Inner:
    """The app behind the middleware: keeps the principal each request reached it with."""

    def __init__(self) -> None:
        self.seen: list[tuple[Any, Any, Any]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.seen.append((scope["user"], scope["auth"], get_access_token()))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})


async def status_of(auth: BearerAuth, token: str) -> int:
    """Send one /mcp request carrying `token`; the HTTP status it got."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {"type": "http", "path": "/mcp", "headers": [(b"authorization", f"Bearer {token}".encode())]}
    await auth(scope, receive, send)
    return sent[0]["status"]


async def test_a_remembered_token_reaches_the_app_with_the_principal_it_was_verified_with():
    inner = Inner()
    auth = BearerAuth(inner, [KEY])
    token = issue([KEY], "support-bot", ["tickets:write", "tickets:read"], timedelta(hours=1), T0)
    with freeze_time(T0 + timedelta(minutes=1)):
        assert [await status_of(auth, token), await status_of(auth, token)] == [200, 200]
    (first_user, first_auth, first_token), again = inner.seen
    assert again == (first_user, first_auth, first_token)
    assert first_token.client_id == first_token.subject == "support-bot"
    assert first_token.scopes == ["tickets:read", "tickets:write"] == first_auth.scopes
    assert first_token.expires_at == int((T0 + timedelta(hours=1)).timestamp())


async def test_a_remembered_token_is_refused_from_the_instant_it_expires():
    inner = Inner()
    auth = BearerAuth(inner, [KEY])
    token = issue([KEY], "support-bot", ["tickets:read"], timedelta(hours=1), T0)
    with freeze_time(T0 + timedelta(hours=1) - timedelta(microseconds=1)):
        assert await status_of(auth, token) == 200
    with freeze_time(T0 + timedelta(hours=1)):
        assert await status_of(auth, token) == 401
        assert await status_of(auth, token) == 401  # forgotten, then refused again by the signature check
    assert len(inner.seen) == 1

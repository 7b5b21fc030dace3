"""A token bound to a world never reaches the default world's data while requests are not routed into worlds."""

from datetime import timedelta

import httpx
import pytest

from aftersales.clock import now
from aftersales.domain.callers import ALL_SCOPES
from aftersales.security import tokens

pytestmark = [pytest.mark.anyio, pytest.mark.http]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_over_http_a_token_bound_to_a_world_is_refused_with_a_clear_401(http_url, app):
    bound = tokens.issue(app.caller_keys, "agent", list(ALL_SCOPES), timedelta(hours=1), now(), world="w-1a2b3c4d")
    async with httpx.AsyncClient() as http:
        answer = await http.post(
            f"{http_url}/mcp",
            headers={"Authorization": f"Bearer {bound}"},
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        )
    assert answer.status_code == 401
    assert 'bound to world "w-1a2b3c4d", which this server does not serve' in answer.json()["error_description"]

"""aftersales/demo/wire.py: the tap records each JSON-RPC message once, in order, however the stream is cut."""

import json

import httpx2
import pytest

from aftersales.demo.wire import Tap

pytestmark = pytest.mark.anyio
ELICIT = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "elicitation/create",
    "params": {"message": "Où va le remboursement ? ¥"},
}
RESULT = {"jsonrpc": "2.0", "id": 2, "result": {"content": [], "isError": False}}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "t", "arguments": {"q": "€"}}}


def event_stream(*messages: dict, cut: int) -> list[bytes]:
    """The messages as server-sent events, cut into chunks of `cut` bytes (anywhere, even inside a character)."""
    body = "".join(f"event: message\r\ndata: {json.dumps(m, ensure_ascii=False)}\r\n\r\n" for m in messages).encode()
    return [body[i : i + cut] for i in range(0, len(body), cut)]


async def exchange(chunks: list[bytes], content_type: str, sent: dict) -> list[dict]:
    """Send `sent` through a tap whose server answers with `chunks`; return what the tap recorded."""
    recorded: list[dict] = []

    def record(entry: dict) -> int:
        recorded.append(entry)
        return len(recorded)

    async def answer(_request: httpx2.Request) -> httpx2.Response:
        async def body():
            for chunk in chunks:
                yield chunk

        return httpx2.Response(200, headers={"content-type": content_type}, content=body())

    tap = Tap(record, lambda state: {"bytes": len(state), "opened": False})
    tap.inner = httpx2.MockTransport(answer)
    async with (
        httpx2.AsyncClient(transport=tap) as client,
        client.stream("POST", "http://demo/mcp", json=sent) as reply,
    ):
        async for _ in reply.aiter_bytes():
            pass
    return recorded


@pytest.mark.parametrize("cut", [1, 5, 64, 10_000])
async def test_a_server_request_on_a_call_stream_is_nested_under_that_call_however_the_bytes_arrive(cut):
    recorded = await exchange(event_stream(ELICIT, RESULT, cut=cut), "text/event-stream", CALL)
    messages = [entry for entry in recorded if entry["kind"] == "message"]
    assert [m["message"] for m in messages] == [CALL, ELICIT, RESULT]
    assert messages[1]["call"] == 2 and messages[1]["nested"] is True and messages[2]["call"] == 2
    assert "curl" in messages[0]["snippets"] and "nested" not in messages[2]


async def test_a_request_state_is_recorded_as_sealed_facts_not_as_its_bytes():
    state = "v1." + "x" * 500
    first = {"jsonrpc": "2.0", "id": 2, "result": {"resultType": "input_required", "requestState": state}}
    recorded = await exchange([json.dumps(first).encode()], "application/json", CALL)
    (answer,) = [entry for entry in recorded if entry.get("direction") == "in"]
    assert answer["message"]["result"]["requestState"] == "<sealed: 503 bytes>" and answer["sealed"]["bytes"] == 503
    assert state not in json.dumps(answer)

"""WholeBodies: the SDK sees a request body whole, or not at all when the client leaves half-way."""

import logging

import pytest
from starlette.types import Message, Receive, Scope, Send

from aftersales.web.bodies import WholeBodies

pytestmark = pytest.mark.anyio


class Recorder:
    """An ASGI app that reads the whole body the way Starlette's Request.body() does."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        self.bodies.append(body)


def client(*messages: Message) -> Receive:
    queue = list(messages)

    async def receive() -> Message:
        return queue.pop(0)

    return receive


def piece(body: bytes, more: bool = True) -> Message:
    return {"type": "http.request", "body": body, "more_body": more}


async def nowhere(message: Message) -> None:
    raise AssertionError(f"nothing should be sent, got {message}")


SCOPE = {"type": "http", "method": "POST", "path": "/mcp", "client": ("127.0.0.1", 5000), "headers": []}


async def test_a_body_sent_in_pieces_reaches_the_app_whole_in_one_message():
    inner = Recorder()
    await WholeBodies(inner)(SCOPE, client(piece(b'{"a":'), piece(b" 1"), piece(b"}", more=False)), nowhere)
    assert inner.bodies == [b'{"a": 1}']


async def test_a_client_that_leaves_mid_body_never_reaches_the_app_and_costs_one_info_line(caplog):
    inner = Recorder()
    caplog.set_level(logging.INFO, logger="aftersales.web.bodies")
    await WholeBodies(inner)(SCOPE, client(piece(b'{"a":'), {"type": "http.disconnect"}), nowhere)
    assert inner.bodies == []
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (logging.INFO, "Client 127.0.0.1:5000 left before sending the whole request body; nothing was done")
    ]


async def test_a_body_over_the_limit_is_passed_on_unbuffered_for_the_sdk_to_refuse():
    inner = Recorder()
    pieces = [piece(b"x" * 8) for _ in range(4)] + [piece(b"", more=False)]
    await WholeBodies(inner, limit=10)(SCOPE, client(*pieces), nowhere)
    assert inner.bodies == [b"x" * 32]

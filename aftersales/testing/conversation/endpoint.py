"""The channel over HTTP: POST /worlds/<id>/customer with the trial's bearer token and {"message": "..."}.

200 {"reply", "ended", "reason", "turn", "turns_left"}; errors are {"error": code, "error_description": what was
wrong, the rule, what to do}: 400 (not JSON, no message, empty), 413 (too long), 409 (ended), 401 (no token, a bad
one, or one bound to another world) and 404 (no conversation in that world). A refused request records nothing.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from aftersales.clock import wall
from aftersales.security.tokens import InvalidToken, verify
from aftersales.testing.conversation.channel import MAX_MESSAGE, ChannelError, Conversation

MAX_BODY = 1_048_576  # bytes read of a request body; a message is far shorter (MAX_MESSAGE characters)
TOKEN_HOW_TO = "Send 'Authorization: Bearer <token>' with the token of this trial (AFTERSALES_TOKEN)."


@dataclass(frozen=True)
class Channel:
    """A trial's conversation as the endpoint finds it, with the creation of the world its tokens must name."""

    conversation: Conversation
    incarnation: str


Lookup = Callable[[str], Channel | None]


async def serve_customer(
    world_id: str, lookup: Lookup, keys: list[str], scope: Scope, receive: Receive, send: Send
) -> None:
    """Answer one request to the customer channel of world `world_id`."""
    try:
        if scope.get("method") != "POST":
            raise ChannelError(
                405,
                "method_not_allowed",
                f"{scope.get('method')} is not a way to talk to the customer.",
                "The customer channel takes POST requests only.",
                'POST {"message": "..."} with your bearer token.',
            )
        channel = _authorised(world_id, lookup, keys, Headers(scope=scope).get("authorization", ""))
        message = _message(await _body(receive))
        said = await anyio.to_thread.run_sync(channel.conversation.say, message)
    except ChannelError as refused:
        body = {"error": refused.code, "error_description": refused.description}
        headers = (
            {"www-authenticate": f'Bearer realm="aftersales", error="{refused.code}"'}
            if refused.status == 401
            else None
        )
        await JSONResponse(body, status_code=refused.status, headers=headers)(scope, receive, send)
        return
    except Exception:
        body = {
            "error": "customer_fault",
            "error_description": "The simulated customer could not answer this message. This is a fault of the test "
            "harness, not of your agent, and the trial is scored as infrastructure. Do not retry: finish the trial.",
        }
        await JSONResponse(body, status_code=500)(scope, receive, send)
        return
    await JSONResponse(said.as_json())(scope, receive, send)


def _authorised(world_id: str, lookup: Lookup, keys: list[str], header: str) -> Channel:
    """The world's channel, when the token is the server's, unexpired, and bound to this creation of this world."""
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise _unauthorized("The request has no bearer token.")
    try:
        claims = verify(keys, token.strip(), wall())
    except InvalidToken as problem:
        raise _unauthorized(f"{str(problem).capitalize()}.") from None
    channel = lookup(world_id)
    if claims.world != world_id or (channel is not None and claims.made != channel.incarnation):
        raise _unauthorized(f"The bearer token is not for world {world_id} (it belongs to another trial).")
    if channel is None:
        raise ChannelError(
            404,
            "no_conversation",
            f"World {world_id} has no conversation.",
            "Only a trial run in conversation mode has a customer to talk to.",
            "Use the customer brief of this trial (a brief-mode trial), or run it with --mode conversation.",
        )
    return channel


def _unauthorized(what: str) -> ChannelError:
    return ChannelError(
        401, "invalid_token", what, "Each trial's customer answers that trial's token only.", TOKEN_HOW_TO
    )


async def _body(receive: Receive) -> bytes:
    """The request body, refused once it passes MAX_BODY bytes."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            raise ChannelError(
                413,
                "message_too_long",
                f"The request body is over {MAX_BODY} bytes.",
                f"A message to the customer is at most {MAX_MESSAGE} characters.",
                "Say it in fewer words, or over several messages, and send it again.",
            )
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _message(body: bytes) -> str:
    """The message of a body {"message": "..."}; ChannelError when the body is not that."""
    try:
        data: Any = json.loads(body)
    except (UnicodeDecodeError, ValueError):
        raise ChannelError(
            400,
            "invalid_json",
            f"The request body is not JSON ({len(body)} bytes).",
            'The customer channel takes a JSON object {"message": "..."}.',
            "Send the message as JSON, with Content-Type: application/json.",
        ) from None
    message = data.get("message") if isinstance(data, dict) else None
    if not isinstance(message, str):
        got = f"the object's keys are {sorted(data)}" if isinstance(data, dict) else f"it is {_json_kind(data)}"
        raise ChannelError(
            400,
            "missing_message",
            f"The request body has no text message: {got}.",
            'The body is a JSON object whose "message" is the text to say to the customer.',
            'Send {"message": "..."}.',
        )
    return message


def _json_kind(value: Any) -> str:
    """What kind of JSON value `value` is, in JSON's words."""
    if value is None or isinstance(value, bool):
        return "null" if value is None else "a boolean"
    kinds = {list: "an array", str: "a string", int: "a number", float: "a number"}
    return kinds.get(type(value), "not an object")

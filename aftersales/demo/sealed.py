"""What a sealed requestState says, read the way only the server can: with its own keys.

A client sees opaque bytes. The demo runs inside the server, so it opens the seal (the SDK's AES-GCM codec) to
show what the state is bound to and when it expires, instead of showing the bytes.
"""

import json
from datetime import UTC, datetime
from typing import Any

from mcp.server.request_state import AESGCMRequestStateCodec, InvalidRequestState


def describe(state: str, keys: list[str], caller: str) -> dict[str, Any]:
    """Size, binding and expiry of a sealed state; `opened` is False when these keys cannot open it."""
    facts: dict[str, Any] = {"bytes": len(state.encode()), "opened": False}
    if not keys:  # another server's state: sealed with keys the demo does not have, as for any client
        return facts
    try:
        claims = json.loads(AESGCMRequestStateCodec(keys).unseal(state))
    except (InvalidRequestState, ValueError):
        return facts
    issued, expires = float(claims["iat"]), float(claims["exp"])
    return facts | {
        "opened": True,
        "method": claims.get("m"),
        "tool": claims.get("t"),
        "arguments_digest": claims.get("a"),
        # The principal is stored as a salted hash: the server can check it, nobody can read it back.
        "caller": caller if claims.get("p") else None,
        "audience": claims.get("aud"),
        "issued_at": _iso(issued),
        "expires_at": _iso(expires),
        "expires_unix": expires,
        "ttl_seconds": round(expires - issued),
    }


def _iso(timestamp: float) -> str:
    """A Unix time as ISO 8601 UTC, to the second."""
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

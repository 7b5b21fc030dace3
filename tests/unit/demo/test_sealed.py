"""aftersales/demo/sealed.py: a requestState the SDK sealed, opened with the server's keys, tells its binding."""

import json
import time

from mcp.server.request_state import AESGCMRequestStateCodec

from aftersales.demo.sealed import describe

KEYS = ["k" * 40]


def test_a_sealed_state_tells_its_tool_caller_and_lifetime_but_not_to_other_keys():
    issued = time.time()
    claims = {"v": 1, "iat": issued, "exp": issued + 600, "m": "tools/call", "t": "after_sales_create_ticket"}
    state = AESGCMRequestStateCodec(KEYS).seal(json.dumps(claims | {"a": "digest", "p": "salted", "s": "{}"}).encode())
    facts = describe(state, KEYS, "demo-agent")
    assert facts["opened"] and facts["tool"] == "after_sales_create_ticket" and facts["caller"] == "demo-agent"
    assert facts["ttl_seconds"] == 600 and facts["bytes"] == len(state) and facts["arguments_digest"] == "digest"
    assert describe(state, ["o" * 40], "demo-agent") == {"bytes": len(state), "opened": False}

"""Copy as curl / Python: one recorded request, ready to run again from a shell or a script."""

import json
import pprint
import shlex

import httpx2

SENT_HEADERS = ("content-type", "accept", "authorization", "mcp-session-id", "mcp-protocol-version")
SENT_PREFIXES = ("mcp-",)


def headers_of(request: httpx2.Request) -> dict[str, str]:
    """The headers the server looks at (content negotiation, the bearer token, the MCP headers), as sent."""
    return {
        name.title() if not name.lower().startswith("mcp-") else _mcp_case(name): value
        for name, value in request.headers.items()
        if name.lower() in SENT_HEADERS or name.lower().startswith(SENT_PREFIXES)
    }


def curl(request: httpx2.Request, body: bytes) -> str:
    """A curl command sending the same request (the body as sent, byte for byte)."""
    lines = [f"curl -sS -N -X {request.method} {shlex.quote(str(request.url))}"]
    lines += [f"  -H {shlex.quote(f'{name}: {value}')}" for name, value in headers_of(request).items()]
    if body:
        lines.append(f"  --data-binary {shlex.quote(body.decode('utf-8'))}")
    return " \\\n".join(lines)


def python(request: httpx2.Request, body: bytes) -> str:
    """A standard-library Python script sending the same request and printing the answer."""
    message = json.loads(body) if body else None
    return "\n".join(
        [
            "import json",
            "import urllib.request",
            "",
            f"body = {_literal(message)}",
            f"headers = {_literal(headers_of(request))}",
            "request = urllib.request.Request(",
            f"    {str(request.url)!r},",
            f"    method={request.method!r},",
            "    data=None if body is None else json.dumps(body).encode(),",
            "    headers=headers,",
            ")",
            "with urllib.request.urlopen(request) as response:",
            "    print(response.status, response.headers.get('Content-Type'))",
            "    print(response.read().decode())",
        ]
    )


def _literal(value: object) -> str:
    """A Python literal of a JSON value, laid out over lines."""
    return pprint.pformat(value, sort_dicts=False, width=100)


def _mcp_case(name: str) -> str:
    """MCP header names as the specification spells them (Mcp-Session-Id, Mcp-Protocol-Version)."""
    return "-".join(part.capitalize() for part in name.split("-"))

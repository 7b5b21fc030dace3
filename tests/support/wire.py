"""Reading JSON-RPC off the wire: the messages in a response body, and a log of the errors a server answered."""

import json
import threading
from dataclasses import dataclass
from typing import Any

JSONRPC_RESERVED = range(-32768, -32000 + 1)  # codes from -32768 to -32000 are JSON-RPC's (and MCP's) own
INTERNAL_ERROR = -32603


def messages(content_type: str, body: bytes) -> list[dict[str, Any]]:
    """The JSON-RPC messages in a body: one JSON document, or the data lines of a server-sent event stream."""
    text = body.decode("utf-8", "replace")
    if "text/event-stream" in content_type:
        documents = [line[5:] for line in text.splitlines() if line.startswith("data:") and line[5:].strip()]
    else:
        documents = [text] if text.strip() else []
    found: list[dict[str, Any]] = []
    for document in documents:
        try:
            parsed = json.loads(document)
        except ValueError:
            continue  # a stream cut short by a client that went away
        found += [m for m in (parsed if isinstance(parsed, list) else [parsed]) if isinstance(m, dict)]
    return found


@dataclass(frozen=True)
class ErrorAnswer:
    """One JSON-RPC error the server sent, with the method of the request it answered."""

    method: str
    code: Any
    message: str

    @property
    def is_fault(self) -> bool:
        """A server fault: -32603, or a code outside JSON-RPC's reserved range (such as 0)."""
        return self.code == INTERNAL_ERROR or not isinstance(self.code, int) or self.code not in JSONRPC_RESERVED


class ErrorLog:
    """A HeaderProxy observer that keeps every JSON-RPC error the server answered."""

    def __init__(self) -> None:
        self.errors: list[ErrorAnswer] = []
        self._lock = threading.Lock()

    def __call__(self, request_body: bytes, content_type: str, response_body: bytes) -> None:
        sent = messages("application/json", request_body)
        methods = {m.get("id"): m.get("method") for m in sent if "method" in m}
        for message in messages(content_type, response_body):
            error = message.get("error")
            if isinstance(error, dict):
                method = methods.get(message.get("id")) or "(unparsed request)"
                with self._lock:
                    self.errors.append(ErrorAnswer(method, error.get("code"), str(error.get("message"))))

    @property
    def faults(self) -> list[ErrorAnswer]:
        """The errors that are server faults."""
        with self._lock:
            return [e for e in self.errors if e.is_fault]

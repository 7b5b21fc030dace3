"""Reading a server-sent event stream as it arrives: each event's id, data and retry field."""

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass(frozen=True)
class Event:
    """One server-sent event; a priming event has an id and no data."""

    id: str | None
    data: str
    retry: int | None

    @property
    def message(self) -> dict[str, Any] | None:
        """The JSON-RPC message the event carries, or None for a priming event."""
        return json.loads(self.data) if self.data.strip() else None


async def events(response: httpx.Response) -> AsyncIterator[Event]:
    """The events of a streamed response, each as soon as its blank line arrives; comments (pings) are skipped."""
    fields: dict[str, list[str]] = {}
    async for line in response.aiter_lines():
        if not line:
            if fields:
                event_id, retry = fields.get("id", []), fields.get("retry", [])
                data = "\n".join(fields.get("data", []))
                yield Event(event_id[-1] if event_id else None, data, int(retry[-1]) if retry else None)
            fields = {}
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        fields.setdefault(name, []).append(value.removeprefix(" "))

"""The customer channel for Python agents: `brief.customer.say(text) -> Reply`, a POST to the trial's channel."""

from typing import Any

import httpx2

from aftersales.testing.conversation.model import Reply
from aftersales.testing.tls import verified

TIMEOUT = 30.0  # seconds for one reply


class ChannelRefused(Exception):
    """The channel refused the message (its status, error code and three-part description); nothing was recorded."""

    def __init__(self, status: int, code: str, description: str) -> None:
        super().__init__(f"{status} {code}: {description}")
        self.status, self.code, self.description = status, code, description


class CustomerClient:
    """Talks to one trial's customer over its channel (the same HTTP endpoint any language uses)."""

    def __init__(self, url: str, token: str) -> None:
        self.url, self._headers = url, {"Authorization": f"Bearer {token}"}
        self.turns_left: int | None = None  # after the first reply, how many messages the customer still takes

    def say(self, text: str) -> Reply:
        """Send `text` to the customer; their reply (ended and its reason when they ended the conversation)."""
        answer = httpx2.post(
            self.url, json={"message": text}, headers=self._headers, timeout=TIMEOUT, verify=verified()
        )
        body: dict[str, Any] = answer.json()
        if answer.status_code != 200:
            raise ChannelRefused(answer.status_code, str(body.get("error")), str(body.get("error_description")))
        self.turns_left = int(body["turns_left"])
        return Reply(str(body["reply"]), ended=bool(body["ended"]), reason=body.get("reason"))

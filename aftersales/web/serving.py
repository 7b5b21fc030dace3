"""Run the web app under uvicorn, closing open streams the moment shutdown starts."""

import asyncio
import socket
from collections.abc import Callable
from typing import Any

import uvicorn
from sse_starlette.sse import AppStatus
from starlette.types import ASGIApp

from aftersales.web.log_links import hide_page_tokens

# How long an idle keep-alive connection stays open. It must outlast every client's own idle expiry (httpx 5 s,
# Node 4 s, aiohttp 15 s, Go 90 s) and a load balancer's (60 s is common): when the server closes first, a client
# that reuses the connection at that moment gets "Server disconnected without sending a response" or a reset,
# and a request it cannot safely repeat fails. uvicorn's default is 5 s, the same as httpx's.
KEEP_ALIVE = 120  # seconds


def config(app: ASGIApp, **options: Any) -> uvicorn.Config:
    """uvicorn's settings for any server this project starts: the keep-alive above, then `options`."""
    made = uvicorn.Config(app, timeout_keep_alive=KEEP_ALIVE, **options)
    hide_page_tokens()  # after uvicorn has configured its loggers: the access log shows page paths, not tokens
    return made


class Server(uvicorn.Server):
    """uvicorn's server, except that a stream that would never end on its own does not hold up shutdown.

    uvicorn waits for every open response to finish before it shuts the app down, and a listen stream or a GET
    stream only ends when the client leaves: a server with one open waited out the whole graceful period and
    then cancelled it with a traceback. Here the streams are ended gracefully as soon as uvicorn has stopped
    accepting connections and told the open ones to close after their response; in-flight calls still finish.
    """

    def __init__(self, config: uvicorn.Config, announce: Callable[[], None] | None = None) -> None:
        super().__init__(config)
        self.announce = announce
        # sse-starlette (under the SDK's 2025-11-25 streams) otherwise cuts every SSE response the moment a signal
        # arrives, in-flight calls included, and uvicorn logs each as a response left incomplete. Streams end here.
        AppStatus.disable_automatic_graceful_drain()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        """Start as uvicorn does, then call `announce` once requests are accepted (never when start-up failed)."""
        await super().startup(sockets)
        if self.announce is not None and self.started and not self.should_exit:
            self.announce()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """Start uvicorn's shutdown, then end the open streams while it waits for responses to finish."""
        stopping = asyncio.ensure_future(super().shutdown(sockets))
        # uvicorn closes the listeners and marks every connection to close before its first await, so a client
        # whose stream ends now cannot reconnect to this process.
        await asyncio.sleep(0)
        close_streams = getattr(getattr(self.config.app, "state", None), "close_streams", None)
        if close_streams is not None:
            close_streams()
        await stopping

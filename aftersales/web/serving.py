"""Run the web app under uvicorn, closing open streams the moment shutdown starts."""

import asyncio
import contextlib
import socket
import sys
from typing import Any

import uvicorn
from sse_starlette.sse import AppStatus
from starlette.applications import Starlette


class Server(uvicorn.Server):
    """uvicorn's server, except that a stream that would never end on its own does not hold up shutdown.

    uvicorn waits for every open response to finish before it shuts the app down, and a listen stream or a GET
    stream only ends when the client leaves: a server with one open waited out the whole graceful period and
    then cancelled it with a traceback. Here the streams are ended gracefully as soon as uvicorn has stopped
    accepting connections and told the open ones to close after their response; in-flight calls still finish.
    """

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        # sse-starlette (under the SDK's 2025-11-25 streams) otherwise cuts every SSE response the moment a signal
        # arrives, in-flight calls included, and uvicorn logs each as a response left incomplete. Streams end here.
        AppStatus.disable_automatic_graceful_drain()

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


def run(web: Starlette, **config: Any) -> None:
    """`uvicorn.run(web, **config)` with this module's Server."""
    server = Server(uvicorn.Config(web, **config))
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn re-raises a captured Ctrl-C once it has stopped
        server.run()
    if not server.started:
        sys.exit(3)  # what uvicorn.run does when the app never started (a busy port, for one)

"""Serving an ASGI app over real HTTP for a test: uvicorn on a free loopback port, in a thread of the test process."""

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from starlette.types import ASGIApp

from aftersales.web.serving import Server, config
from tests.support.free_ports import free_port

START_TIMEOUT = 15  # seconds
STOP_TIMEOUT = 10  # seconds


@contextmanager
def serving(app: ASGIApp, port: int | None = None) -> Iterator[str]:
    """Serve `app` the way `aftersales serve` does until the block ends; yield its base URL (http://127.0.0.1:PORT)."""
    port = port or free_port()
    server = Server(config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(STOP_TIMEOUT)
    # Reached only when the block ended without an error, so a failure inside it is never hidden by this one.
    if thread.is_alive():
        raise RuntimeError(f"uvicorn on port {port} did not stop within {STOP_TIMEOUT} seconds")

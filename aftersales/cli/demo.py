"""`aftersales demo`: serve the elicitation demo page, on throwaway data of its own."""

import argparse
import logging
import shutil
import sys
import tempfile
from pathlib import Path

from aftersales.cli import port
from aftersales.cli.console import say
from aftersales.cli.serve import listen
from aftersales.cli.signals import sigterm_exits
from aftersales.demo.web import create_demo_app
from aftersales.settings import Settings
from aftersales.web import serving

DEFAULT_PORT = 8765  # not serve's 8000, so the demo can run beside a server


def add(demo: argparse.ArgumentParser) -> None:
    """Register the demo command."""
    demo.add_argument("--host", default="127.0.0.1", help="Interface to bind (default 127.0.0.1).")
    demo.add_argument(
        "--port", type=port, default=DEFAULT_PORT, help=f"Port (default {DEFAULT_PORT}; 0: any free one)."
    )
    demo.set_defaults(run=run)


def connect_host(host: str) -> str:
    """The address the demo's own MCP clients use to reach this server (a wildcard bind is reached on loopback)."""
    if host in ("0.0.0.0", "", "localhost"):
        return "127.0.0.1"
    if host in ("::", "::1"):
        return "[::1]"
    return f"[{host}]" if ":" in host else host


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Bind, make the demo world in a temporary folder, serve the page until stopped, then delete the folder."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s %(message)s")
    sock = listen(args.host, args.port)
    folder = Path(tempfile.mkdtemp(prefix="aftersales-demo-"))
    try:
        port = sock.getsockname()[1]
        app = create_demo_app(settings, folder, connect_host(args.host), port)
        shown = f"http://{connect_host(args.host)}:{port}/"

        def announce() -> None:
            say(
                f"aftersales demo: open {shown} in a browser. The demo runs in its own demo world, made from the "
                f"baseline in {folder}, forked fresh for every case and deleted when it stops (Ctrl-C)."
            )

        config = serving.config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=5)
        with sigterm_exits():  # so the folder below is deleted however serving ends
            serving.Server(config, announce).run(sockets=[sock])
    finally:
        sock.close()
        shutil.rmtree(folder, ignore_errors=True)
    return 0

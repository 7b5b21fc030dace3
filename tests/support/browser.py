"""Headless Chromium for page tests: Debian's `chromium` (apt-get installs it when missing), driven by Playwright.

Playwright drives the system browser through `executable_path`; it never downloads one (`playwright install` needs
a host these machines cannot reach). As with PostgreSQL (tests/support/postgres.py), the package is installed only
when the binary is missing, once per machine.
"""

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import BrowserContext, sync_playwright

from tests.support import apt

CHROMIUM = apt.CHROMIUM
# Without the networking flags Chromium keeps trying hosts this machine's closed network refuses.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium() -> Path:
    """The Chromium binary: Debian's package, installed with apt-get (as root) when it is not there yet."""
    apt.ensure("chromium", apt.NEEDED["chromium"])
    return CHROMIUM


@contextmanager
def browser(width: int = 1280, height: int = 720) -> Iterator[BrowserContext]:
    """A headless Chromium with a fresh profile and a window of width x height, closed afterwards."""
    executable = chromium()
    with tempfile.TemporaryDirectory(prefix="aftersales-chromium-") as profile, sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=str(executable),
            args=FLAGS,
            headless=True,
            viewport={"width": width, "height": height},
            permissions=["clipboard-read", "clipboard-write"],
        )
        try:
            yield context
        finally:
            context.close()

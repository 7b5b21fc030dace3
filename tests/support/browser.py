"""Headless Chromium for page tests: Debian's `chromium` (apt-get installs it when missing), driven by Playwright.

Playwright drives the system browser through `executable_path`; it never downloads one (`playwright install` needs
a host these machines cannot reach). As with PostgreSQL (tests/support/postgres.py), the package is installed only
when the binary is missing, once per machine.
"""

import fcntl
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import BrowserContext, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
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
LOCK = Path(tempfile.gettempdir()) / "aftersales-chromium-install.lock"


def chromium() -> Path:
    """The Chromium binary: Debian's package, installed with apt-get (as root) when it is not there yet."""
    if CHROMIUM.exists():
        return CHROMIUM
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise RuntimeError(f"{CHROMIUM} is missing and cannot be installed here: apt-get install chromium")
    with LOCK.open("w") as lock:  # parallel test processes install it once
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not CHROMIUM.exists():
            env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
            subprocess.run(["apt-get", "update", "-qq"], check=True, env=env, timeout=600)
            subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=True, env=env, timeout=900)
    if not CHROMIUM.exists():
        raise RuntimeError("apt-get installed chromium but /usr/bin/chromium is missing")
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

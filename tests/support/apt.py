"""Debian packages the tests need (PostgreSQL, Chromium, npm, HAProxy), installed with apt-get only when missing.

Parallel test workers share one lock: dpkg refuses a second apt-get while one runs, so installs take turns, and each
checks again under the lock whether another worker installed the package meanwhile.
"""

import fcntl
import glob
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

# Not in the temporary directory: each test session has its own (tests/support/leftovers.py), and sessions running at
# once must still take turns. Only root installs, and /run/lock is root's.
LOCK = Path("/run/lock") / "aftersales-apt-install.lock"
CHROMIUM = Path("/usr/bin/chromium")
HAPROXY = Path("/usr/sbin/haproxy")  # Debian's place, outside PATH for users other than root


def haproxy_binary() -> str | None:
    """The haproxy binary, if installed."""
    return shutil.which("haproxy") or (str(HAPROXY) if HAPROXY.exists() else None)


def postgres_bin_dir() -> Path | None:
    """The newest installed PostgreSQL server's bin directory, if any."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if candidates:
        return Path(candidates[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


# Each package the suite installs when missing, with how to tell it is there (tests/support/warm.py installs them all).
NEEDED: dict[str, Callable[[], bool]] = {
    "postgresql": lambda: postgres_bin_dir() is not None,
    "chromium": CHROMIUM.exists,
    "npm": lambda: shutil.which("npm") is not None,
    "haproxy": lambda: haproxy_binary() is not None,
}


def ensure(package: str, present: Callable[[], bool]) -> None:
    """Install `package` unless `present()` already holds; raise with what to do when it cannot be installed."""
    if present():
        return
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise RuntimeError(f"{package} is not installed and cannot be installed here: apt-get install {package}")
    with LOCK.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if present():
            return
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env, timeout=600)
        subprocess.run(["apt-get", "install", "-y", "-qq", package], check=True, env=env, timeout=900)
    if not present():
        raise RuntimeError(f"apt-get installed {package} but it is still missing")

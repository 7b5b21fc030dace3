"""The plugin's server: in this process (the default), an existing URL, or `aftersales serve` in a subprocess.

The subprocess gets a private data dir, a free port (`--port 0`, read back from its banner), the worlds admin API,
the harness's generous limits, keys of its own (so the CLI can issue its admin token while it starts) and none of
the caller's AFTERSALES_* variables, so a test run never touches a database it was not given.
"""

import os
import re
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from aftersales.testing.hosts.interface import TrialHost
from aftersales.testing.hosts.remote import RemoteHost, ServerUnavailable

MODES = ("in-process", "subprocess")
READY = re.compile(r"serving MCP at (http://\S+?)/mcp\b")
START_TIMEOUT = 120.0  # migrating and seeding a fresh data dir on a busy machine
STOP_TIMEOUT = 30.0
ADMIN_CALLER = "pytest-harness"


@dataclass(frozen=True)
class Spawned:
    """A server started by the plugin: its URL, an admin token from the CLI, the environment it runs with."""

    url: str
    admin_token: str
    env: dict[str, str]
    log: Path


@contextmanager
def open_host(
    folder: Path,
    url: str | None = None,
    admin_token: str | None = None,
    mode: str = "in-process",
    database_url: str | None = None,
) -> Iterator[TrialHost]:
    """The host the options ask for, started; a usage mistake or an unusable server is a ServerUnavailable."""
    if mode not in MODES:
        raise ServerUnavailable(f"--aftersales-server {mode!r} is not a mode: choose {' or '.join(MODES)}.")
    if url is not None:
        if mode == "subprocess":
            raise ServerUnavailable(
                "--aftersales-url and --aftersales-server subprocess were both given: the plugin uses one server. "
                "Leave out one of them."
            )
        if not admin_token:
            raise ServerUnavailable(
                f"--aftersales-url {url} was given without an admin token. The plugin makes worlds through the "
                "server's /admin/worlds API, which needs a token with the worlds:admin scope. Issue one on the "
                "server (aftersales token issue --caller harness --scopes worlds:admin) and pass it as "
                "--aftersales-admin-token or AFTERSALES_TEST_ADMIN_TOKEN."
            )
        with RemoteHost(url, admin_token) as host:
            yield host
    elif mode == "subprocess":
        with spawned_server(folder, database_url) as server, RemoteHost(server.url, server.admin_token) as host:
            yield host
    else:
        from aftersales.testing.hosts.in_process import Host, harness_settings

        with Host(harness_settings(database_url, folder)) as host:
            yield host


@contextmanager
def spawned_server(folder: Path, database_url: str | None = None) -> Iterator[Spawned]:
    """`aftersales serve` on a free loopback port with the worlds admin API, stopped (SIGTERM) on exit."""
    env = server_env(folder, database_url)
    log = folder / "server.log"
    command = [sys.executable, "-m", "aftersales"]
    with log.open("wb") as output:
        process = subprocess.Popen(
            [*command, "serve", "--host", "127.0.0.1", "--port", "0"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        # Issued while the server starts: the keys are in the environment, so both read the same ones.
        issued = subprocess.run(
            [*command, "token", "issue", "--caller", ADMIN_CALLER, "--scopes", "worlds:admin", "--ttl", "1d"],
            env=env,
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT,
            check=False,
        )
        if issued.returncode != 0:
            raise ServerUnavailable(f"`aftersales token issue` failed (exit {issued.returncode}): {issued.stderr}")
        yield Spawned(_wait_until_serving(process, log), issued.stdout.strip(), env, log)
    finally:
        process.terminate()
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def server_env(folder: Path, database_url: str | None = None) -> dict[str, str]:
    """The subprocess's environment: this one without AFTERSALES_* settings, plus the harness server's own."""
    from aftersales.testing.hosts.in_process import HARNESS

    env = {name: value for name, value in os.environ.items() if not name.startswith("AFTERSALES_")}
    env |= {f"AFTERSALES_{name.upper()}": str(value) for name, value in HARNESS.items()}
    env |= {
        # Production serves no default world data and prints no development token: the tests use worlds only.
        "AFTERSALES_ENV": "production",
        "AFTERSALES_DATA_DIR": str(folder),
        "AFTERSALES_WORLDS_ADMIN": "true",
        "AFTERSALES_SECRET_KEYS": secrets.token_urlsafe(48),
        "AFTERSALES_STATE_KEYS": secrets.token_urlsafe(48),
    }
    if database_url:
        env["AFTERSALES_DATABASE_URL"] = database_url
    return env


def _wait_until_serving(process: "subprocess.Popen[bytes]", log: Path) -> str:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        text = log.read_text("utf-8", "replace")
        ready = READY.search(text)
        if ready is not None:
            return ready.group(1)
        if process.poll() is not None:
            raise ServerUnavailable(
                f"`aftersales serve` stopped before serving (exit {process.returncode}). Its output ({log}) ends:\n"
                + "\n".join(text.splitlines()[-15:])
            )
        time.sleep(0.05)
    raise ServerUnavailable(
        f"`aftersales serve` did not start serving within {START_TIMEOUT:.0f} s; its output is in {log}."
    )

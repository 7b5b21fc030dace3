"""`aftersales serve` as a child process: started on a free port, stopped with a signal, its log kept."""

import os
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.support.clients import bearer_token
from tests.support.free_ports import free_port
from tests.support.processes import LoopbackProcess

SERVE = [sys.executable, "-m", "aftersales", "serve"]
START_TIMEOUT = 60  # seconds
STOP_TIMEOUT = 30  # seconds


def new_key() -> str:
    """A key strong enough for production settings."""
    return secrets.token_urlsafe(48)


@dataclass
class ServeProcess(LoopbackProcess):
    """One production server process on `database_url`, data in `folder`, stderr in `log`.

    Processes given the same `keys` and `state_keys` are replicas: each accepts the tokens and the requestState
    the others issued.
    """

    LOG = "server.log"

    database_url: str
    folder: Path
    port: int = field(default_factory=free_port)
    keys: list[str] = field(default_factory=lambda: [new_key()])
    state_keys: str = field(default_factory=new_key)
    settings: dict[str, str] = field(default_factory=dict)  # more AFTERSALES_* variables for this process
    options: list[str] = field(default_factory=list)  # more `serve` options, such as ["--workers", "2"]
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start `aftersales serve` and wait until /readyz answers 200 (the database is reachable and migrated)."""
        self.launch()
        self.wait_ready()

    def launch(self) -> None:
        """Start `aftersales serve` without waiting for it (start several, then `wait_ready` on each)."""
        env = {
            **os.environ,
            "AFTERSALES_ENV": "production",
            "AFTERSALES_DATABASE_URL": self.database_url,
            "AFTERSALES_DATA_DIR": str(self.folder),
            "AFTERSALES_SECRET_KEYS": ",".join(self.keys),
            "AFTERSALES_STATE_KEYS": self.state_keys,
            "AFTERSALES_LOG_LEVEL": "INFO",
            **self.settings,
        }
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [*SERVE, "--port", str(self.port), *self.options], env=env, stdout=subprocess.DEVNULL, stderr=log
            )

    def wait_ready(self) -> None:
        """Wait until the launched process answers /readyz with 200; raise if it exits or takes too long."""
        assert self.process is not None
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"aftersales serve exited: {self.log.read_text()[-2000:]}")
            if self.ready():
                return
            time.sleep(0.05)
        # Kill it before failing: a server left running is a leaked process the next tests trip over.
        self.process.kill()
        self.process.wait()
        raise RuntimeError(
            f"aftersales serve did not become ready in {START_TIMEOUT} seconds: {self.log.read_text()[-2000:]}"
        )

    def ready(self) -> bool:
        """Whether /readyz answers 200 within a second (a request that times out or is refused: not yet)."""
        try:
            return httpx.get(f"{self.url}/readyz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def children(self) -> set[int]:
        """The pids of the processes this server started (its workers under `--workers N`)."""
        assert self.process is not None
        found = set()
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:  # a process that ended while we looked
                continue
            if int(fields[1]) == self.process.pid:
                found.add(int(stat.parent.name))
        return found

    def token(self, caller: str = "support-bot") -> str:
        """A bearer token for `caller` with every scope, signed with this server's keys."""
        return bearer_token(self.keys, caller)

    def signal(self, number: int = signal.SIGTERM) -> None:
        """Send a signal, as an orchestrator stopping the container would."""
        assert self.process is not None
        self.process.send_signal(number)

    def wait(self, timeout: float) -> None:
        """Wait for the process to exit; kill it (and fail) if it takes longer than `timeout` seconds."""
        assert self.process is not None
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise

    def stop(self) -> None:
        """Stop gracefully with SIGTERM if it still runs, as an orchestrator would; kill it if that takes too long."""
        if self.process is not None and self.process.poll() is None:
            self.signal(signal.SIGTERM)
            self.wait(STOP_TIMEOUT)

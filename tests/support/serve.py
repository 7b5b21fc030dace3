"""`aftersales serve` as a child process: started on a free port, stopped with a signal, its log kept."""

import os
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import httpx

from aftersales.clock import now
from aftersales.domain.callers import ALL_SCOPES
from aftersales.security import tokens
from tests.support.web import free_port


@dataclass
class ServeProcess:
    """One server process on `database_url`, with keys of its own; stderr goes to `log`."""

    database_url: str
    folder: Path
    port: int = field(default_factory=free_port)
    keys: list[str] = field(default_factory=lambda: [secrets.token_urlsafe(48)])
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return self.folder / "server.log"

    def start(self) -> None:
        """Start `aftersales serve` and wait until it answers /healthz."""
        env = {
            **os.environ,
            "AFTERSALES_ENV": "production",
            "AFTERSALES_DATABASE_URL": self.database_url,
            "AFTERSALES_DATA_DIR": str(self.folder),
            "AFTERSALES_SECRET_KEYS": ",".join(self.keys),
            "AFTERSALES_STATE_KEYS": secrets.token_urlsafe(48),
            "AFTERSALES_LOG_LEVEL": "INFO",
        }
        argv = [sys.executable, "-m", "aftersales", "serve", "--port", str(self.port)]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"aftersales serve exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError("aftersales serve did not start")

    def token(self, caller: str = "support-bot") -> str:
        """A bearer token for `caller` with every scope, signed with this server's keys."""
        return tokens.issue(self.keys, caller, list(ALL_SCOPES), timedelta(hours=1), now())

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
        """Make sure the process is gone."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

"""HAProxy running the shipped deploy/haproxy/haproxy.cfg in front of replicas, as a child process.

Debian's `haproxy` package is installed with apt-get only when no binary is found (tests/support/apt.py). The
configuration file is used as it is: only the environment it reads differs (replica addresses, a port, a faster
health check, a lower channel limit).
"""

import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.support import ROOT, apt
from tests.support.apps import UNLIMITED
from tests.support.free_ports import free_port
from tests.support.processes import LoopbackProcess
from tests.support.serve import STOP_TIMEOUT, ServeProcess, new_key

CONFIG = ROOT / "deploy" / "haproxy" / "haproxy.cfg"
SERVED_BY = "x-served-by"  # the response header naming the server line that answered
START_TIMEOUT = 10  # seconds
# The balancer's settings in the tests: health checks ten times as often as the shipped default (a replica killed
# or back is noticed in well under a second), and a channel limit a test reaches in a few calls.
BALANCER_SETTINGS = {"HEALTH_INTERVAL": "100ms", "CHANNEL_CALLS_PER_10S": "4"}


def binary() -> str:
    """The haproxy binary, installed with apt-get first when missing."""
    apt.ensure("haproxy", apt.NEEDED["haproxy"])
    found = apt.haproxy_binary()
    assert found is not None  # ensure() raised if it is still missing
    return found


def server_names(count: int) -> list[str]:
    """The names the configuration gives its server lines, in order (replica1, replica2, ...)."""
    return [f"replica{number}" for number in range(1, count + 1)]


@dataclass
class Balancer(LoopbackProcess):
    """HAProxy on a free port, its server lines pointed at `addresses` (host:port each), its log in `folder`."""

    LOG = "haproxy.log"

    addresses: list[str]
    folder: Path
    settings: dict[str, str] = field(default_factory=dict)  # more variables the configuration reads
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start HAProxy and wait until it accepts connections."""
        replicas = {f"REPLICA{number}": address for number, address in enumerate(self.addresses, start=1)}
        env = {**os.environ, "BALANCER_PORT": str(self.port), **replicas, **self.settings}
        with self.log.open("ab") as log:
            # -db: stay in the foreground; -W: master-worker mode, so SIGTERM stops every process it started.
            self.process = subprocess.Popen(
                [binary(), "-W", "-db", "-f", str(CONFIG)], env=env, stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"haproxy exited: {self.log.read_text()[-2000:]}")
            try:
                httpx.get(f"{self.url}/healthz", timeout=1)
                return
            except httpx.TransportError:
                time.sleep(0.02)
        raise RuntimeError(f"haproxy did not accept connections in {START_TIMEOUT} seconds")

    def stop(self) -> None:
        """Stop HAProxy (SIGTERM: it closes its connections and exits)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@dataclass
class BalancedFleet:
    """Replicas on one PostgreSQL database behind one balancer; `replicas` by their server line's name."""

    replicas: dict[str, ServeProcess]
    balancer: Balancer
    database_url: str

    @property
    def url(self) -> str:
        return self.balancer.url

    def token(self, caller: str = "support-bot") -> str:
        """A bearer token every replica accepts (they share their keys)."""
        return next(iter(self.replicas.values())).token(caller)


@contextmanager
def balanced_fleet(database_url: str, folder: Path, count: int = 3, **settings: str) -> Iterator[BalancedFleet]:
    """`count` replicas of `aftersales serve` on `database_url`, started at once, behind a balancer."""
    keys, state_keys = [new_key()], new_key()
    # The replicas share one caller's rate limits (on PostgreSQL): the balancer's tests make more calls a minute than
    # the default limit lets one caller make, and are not about that limit (test_replicas.py is).
    limits = {f"AFTERSALES_{name.upper()}": str(value) for name, value in UNLIMITED.items()}
    replicas = {
        name: ServeProcess(database_url, folder / name, keys=keys, state_keys=state_keys, settings=limits)
        for name in server_names(count)
    }
    balancer = Balancer([f"127.0.0.1:{replica.port}" for replica in replicas.values()], folder, settings)
    try:
        for replica in replicas.values():
            replica.folder.mkdir(parents=True)
            replica.launch()
        for replica in replicas.values():
            replica.wait_ready()
        balancer.start()
        yield BalancedFleet(replicas, balancer, database_url)
    finally:
        balancer.stop()
        stop_all(list(replicas.values()))


def stop_all(replicas: list[ServeProcess]) -> None:
    """Stop every replica still running: SIGTERM to all first, so their graceful shutdowns overlap."""
    running = [replica for replica in replicas if replica.process is not None and replica.process.poll() is None]
    for replica in running:
        replica.signal()
    for replica in running:
        replica.wait(STOP_TIMEOUT)

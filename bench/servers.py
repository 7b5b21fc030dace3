"""The server processes a bench run starts (aftersales, the floor, the FastMCP peer), and what /proc says of them."""

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

REPO_ROOT = Path(__file__).resolve().parent.parent
WORK = REPO_ROOT / "var" / "bench"
STARTED = time.monotonic()
UNLIMITED = {
    f"AFTERSALES_RATE_{kind}_{what}": "100000000" for kind in ("READ", "WRITE") for what in ("PER_MINUTE", "BURST")
}


def progress(message: str) -> None:
    """One line of progress, with the seconds since the bench started."""
    print(f"[{time.monotonic() - STARTED:6.0f} s] {message}", flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _stat(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def _status_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


@dataclass
class Server:
    """A server we started (a parent and, with workers, its children), with its figures read from /proc."""

    name: str
    process: subprocess.Popen[bytes]
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def wait_ready(self, path: str) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}")
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}{path}", timeout=1).status_code < 500:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} did not start")

    def pids(self) -> list[int]:
        """The parent and every process it started (uvicorn's or aftersales' workers)."""
        found = [self.process.pid]
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                if int(_stat(int(stat.parent.name))[1]) == self.process.pid:
                    found.append(int(stat.parent.name))
            except (OSError, ValueError, IndexError):
                continue
        return found

    def cpu_seconds(self) -> float:
        """CPU time of the parent and its live children."""
        total = 0
        for pid in self.pids():
            try:
                fields = _stat(pid)
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])
        return total / os.sysconf("SC_CLK_TCK")

    def peak_rss_mb(self) -> dict[str, float]:
        """Peak resident memory (VmHWM) of each process, by pid, in MB."""
        return {str(pid): round(_status_kb(pid, "VmHWM") / 1024, 1) for pid in self.pids()}

    def rss_mb(self) -> float:
        """Resident memory (VmRSS) of all its processes now, in MB."""
        return round(sum(_status_kb(pid, "VmRSS") for pid in self.pids()) / 1024, 1)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(60)


def start_aftersales(
    database_url: str,
    log: Path,
    workers: int = 1,
    name: str = "aftersales",
    module: str = "aftersales",
    pin: bool = False,
) -> tuple[Server, str]:
    """`aftersales serve --workers N` on a free port against `database_url`; return it and a caller token."""
    # `module` runs another entry point with the same command line (bench.ablated); `pin` sets AFTERSALES_PIN_CPUS.
    env = {
        **os.environ,
        **UNLIMITED,
        "AFTERSALES_DATABASE_URL": database_url,
        "AFTERSALES_DATA_DIR": str(WORK / "data"),
        "AFTERSALES_LOG_LEVEL": "WARNING",
        # Only when asked: a variant of bench.cpu may set AFTERSALES_PIN_CPUS in the environment itself.
        **({"AFTERSALES_PIN_CPUS": "true"} if pin else {}),
    }
    port = free_port()
    with log.open("ab") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", module, "serve", "--port", str(port), "--workers", str(workers)],
            cwd=REPO_ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=sink,
        )
    server = Server(name, process, port)
    server.wait_ready("/readyz")
    if workers > 1:
        while len(server.pids()) < workers + 1:  # /readyz answers once the first worker does
            time.sleep(0.1)
    token = subprocess.run(
        [sys.executable, "-m", "aftersales", "token", "issue", "--caller", "bench-bot"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return server, token


def start_floor(log: Path, workers: int = 1, pin: bool = False) -> Server:
    """The floor server (bench/floor.py) with `workers` uvicorn processes; `pin`: on one CPU, as `serve --pin-cpus`."""
    port = free_port()
    with log.open("ab") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "bench.floor", "--port", str(port), "--workers", str(workers)]
            + (["--pin-cpus"] if pin else []),
            cwd=REPO_ROOT,
            stdout=subprocess.DEVNULL,
            stderr=sink,
        )
    server = Server(f"floor x{workers}" + (" pinned" if pin else ""), process, port)
    server.wait_ready("/mcp")
    if workers > 1:
        time.sleep(2)  # uvicorn answers once one worker does; give the other time to import
    return server


def start_peer(database_url: str, log: Path, name: str = "fastmcp peer") -> Server:
    """The FastMCP peer (bench/peer.py) on a free port against `database_url`, as its docs serve it: one process."""
    port = free_port()
    with log.open("ab") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "bench.peer", "--port", str(port), "--database", database_url],
            cwd=REPO_ROOT,
            stdout=subprocess.DEVNULL,
            stderr=sink,
        )
    server = Server(name, process, port)
    server.wait_ready("/mcp")
    return server


def run_in_work(main: Callable[[argparse.Namespace], Coroutine[Any, Any, None]], args: argparse.Namespace) -> int:
    """Run a bench command's coroutine with its parsed arguments, its working folder made first; exit status 0."""
    WORK.mkdir(parents=True, exist_ok=True)
    asyncio.run(main(args))
    return 0

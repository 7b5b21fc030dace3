"""`serve --workers N`: N server processes accepting on the port the parent bound, after it prepared the database.

Each worker is a fresh `python -m aftersales serve` process (no fork of a process holding threads or pooled
connections) that inherits a listening socket and a socketpair to the parent. On Linux each worker has a socket of
its own on the port (SO_REUSEPORT, see cli.serve.spread) and the kernel spreads new connections over them;
elsewhere they share one, and the kernel hands each new connection to one of the processes waiting in accept().
A worker says `ready` on its socketpair once uvicorn accepts requests; the parent announces when every worker has.
The worker treats the socketpair closing as its parent having gone, and stops, so no orphan keeps serving the port.
"""

import logging
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import FrameType

log = logging.getLogger(__name__)
READY = b"r"
START_TIMEOUT = 60.0  # seconds for a worker to import, build its app and accept
STOP_TIMEOUT = 30.0  # seconds for a worker to finish in-flight calls (uvicorn allows them 20) before it is killed


@dataclass
class Worker:
    """One child process and the parent's end of its socketpair."""

    process: subprocess.Popen[bytes]
    line: socket.socket

    def stop(self) -> None:
        """Ask the worker to stop gracefully, as an orchestrator would ask the whole server."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)

    def reap(self) -> int:
        """Wait for the worker to exit (killing it after STOP_TIMEOUT); its exit status."""
        try:
            code = self.process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            log.warning("worker %s did not stop within %s seconds; killed", self.process.pid, STOP_TIMEOUT)
            self.process.kill()
            code = self.process.wait()
        self.line.close()
        return code


def spawn(sock: socket.socket, argv: list[str]) -> Worker:
    """Start one worker serving `sock`; `argv` are the serve options it shares with the parent."""
    parent_end, child_end = socket.socketpair()
    fds = (sock.fileno(), child_end.fileno())
    command = [sys.executable, "-m", "aftersales", "serve", *argv, "--worker-fds", f"{fds[0]},{fds[1]}"]
    process = subprocess.Popen(command, pass_fds=fds, stdout=subprocess.DEVNULL)
    child_end.close()
    return Worker(process, parent_end)


def wait_ready(workers: list[Worker], stopping: threading.Event) -> bool:
    """True once every worker said ready; False when one exited first, the wait timed out, or we are stopping."""
    waiting = {worker.line: worker for worker in workers}
    deadline = time.monotonic() + START_TIMEOUT
    while waiting and not stopping.is_set() and time.monotonic() < deadline:
        readable, _, _ = select.select(list(waiting), [], [], 0.2)
        for line in readable:
            if line.recv(1) != READY:  # b"" when the worker exited before it accepted
                return False
            del waiting[line]
    return not waiting


def supervise(
    socks: Sequence[socket.socket],
    argv: list[str],
    count: int,
    announce: Callable[[], None],
    cpus: Sequence[int] = (),
) -> int:
    """Run `count` workers on `socks` until SIGTERM or Ctrl-C; replace a worker that dies; stop them all cleanly."""
    stopping = threading.Event()

    def start(slot: int) -> Worker:
        # The worker in slot i, and any that replaces it, accepts on socks[i] (or on the one socket all share) and,
        # with `cpus` (one per slot), pins itself to cpus[i].
        sock = socks[slot % len(socks)]
        return spawn(sock, [*argv, "--worker-cpu", str(cpus[slot])] if cpus else argv)

    def stop(_signum: int, _frame: FrameType | None) -> None:
        stopping.set()

    previous = {number: signal.signal(number, stop) for number in (signal.SIGTERM, signal.SIGINT)}
    workers: list[Worker] = []
    try:
        for slot in range(count):  # inside `try`: should one fail to spawn, those already started are stopped
            workers.append(start(slot))
        if not wait_ready(workers, stopping):
            # A worker that could not start printed its own one-line reason; the others are stopped below.
            return 0 if stopping.is_set() else 2
        announce()
        while not stopping.wait(0.5):
            for index, worker in enumerate(workers):
                if worker.process.poll() is None:
                    continue
                log.warning("worker %s exited with status %s; starting another", worker.process.pid, worker.reap())
                workers[index] = start(index)
                if not wait_ready([workers[index]], stopping):
                    return 0 if stopping.is_set() else 2
        return 0
    finally:
        # Closing our copies first means that once the workers close theirs no connection waits in a dead backlog.
        for sock in socks:
            sock.close()
        for worker in workers:
            worker.stop()
        for worker in workers:
            worker.reap()
        for number, handler in previous.items():
            signal.signal(number, handler)


def worker_sockets(spec: str) -> tuple[socket.socket, socket.socket]:
    """The listening socket and the line to the parent, from `--worker-fds LISTEN,LINE`."""
    listen_fd, line_fd = (int(part) for part in spec.split(","))
    return socket.socket(fileno=listen_fd), socket.socket(fileno=line_fd)


def watch_parent(line: socket.socket) -> None:
    """Stop this worker (as SIGTERM would) once the parent is gone and its end of the line closes."""

    def watch() -> None:
        try:
            while line.recv(1):
                pass
        except OSError:
            pass
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()

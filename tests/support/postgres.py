"""A throwaway PostgreSQL server for the test run, and scratch databases made on it for one test each.

The server (initdb in a temp dir, a free loopback port, stopped at the end) is used when
AFTERSALES_TEST_POSTGRES_URL is not set. Installs Debian's server package with apt-get only when no PostgreSQL
binaries are found. PostgreSQL refuses to run as root, so as root the server runs as a system user.
"""

import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from aftersales.storage.database import make_engine
from tests.support import apt
from tests.support.free_ports import free_port

SERVICE_USER = "postgres"
_numbers = itertools.count()


@dataclass
class PostgresServer:
    """A running server; `url` reaches its `postgres` database as the superuser."""

    bin_dir: Path
    data_dir: Path
    port: int
    run_as: str | None

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://{self.superuser}@127.0.0.1:{self.port}/postgres"

    @property
    def superuser(self) -> str:
        return self.run_as or pwd.getpwuid(os.getuid()).pw_name

    def stop(self) -> None:
        """Stop the server (fast shutdown) and delete its files."""
        self._run(["pg_ctl", "-D", str(self.data_dir), "-m", "fast", "-w", "stop"], check=False)
        shutil.rmtree(self.data_dir.parent, ignore_errors=True)

    def _run(self, argv: list[str], check: bool = True) -> subprocess.CompletedProcess[str]:
        command = [str(self.bin_dir / argv[0]), *argv[1:]]
        if self.run_as:
            command = ["runuser", "-u", self.run_as, "--", *command]
        return subprocess.run(command, check=check, capture_output=True, text=True, timeout=120)


def install_server() -> Path:
    """apt-get install the server package (only when no binaries exist)."""
    apt.ensure("postgresql", apt.NEEDED["postgresql"])
    found = apt.postgres_bin_dir()
    assert found is not None  # ensure() raised if it is still missing
    return found


def start() -> PostgresServer:
    """initdb and start a server on a free port; the caller must `stop()` it."""
    bin_dir = apt.postgres_bin_dir() or install_server()
    run_as = SERVICE_USER if os.geteuid() == 0 else None
    root = Path(tempfile.mkdtemp(prefix="aftersales-pg-"))
    data_dir = root / "data"
    if run_as:
        shutil.chown(root, user=run_as)
        root.chmod(0o700)
    server = PostgresServer(bin_dir=bin_dir, data_dir=data_dir, port=free_port(), run_as=run_as)
    server._run(
        ["initdb", "-D", str(data_dir), "-U", server.superuser, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"]
    )
    options = (
        f"-p {server.port} -c listen_addresses=127.0.0.1 -k {root} -c fsync=off -c synchronous_commit=off "
        "-c full_page_writes=off -c max_connections=200"
    )
    started = server._run(
        ["pg_ctl", "-D", str(data_dir), "-o", options, "-l", str(root / "log"), "-w", "start"], check=False
    )
    if started.returncode != 0:
        log = (root / "log").read_text() if (root / "log").exists() else started.stderr
        shutil.rmtree(root, ignore_errors=True)
        raise RuntimeError(f"PostgreSQL did not start: {log[-2000:]}")
    return server


def admin_engine(url: str) -> Engine:
    """An autocommit engine for CREATE/DROP DATABASE."""
    return make_engine(url, isolation_level="AUTOCOMMIT")


@contextmanager
def scratch_database(admin_url: str, template: str | None = None) -> Iterator[str]:
    """A PostgreSQL database made for one test (a copy of `template`, or empty), dropped afterwards."""
    name = f"aftersales_test_{os.getpid()}_{next(_numbers)}"
    admin = admin_engine(admin_url)
    with admin.connect() as connection:
        connection.execute(text(f"CREATE DATABASE {name}" + (f" TEMPLATE {template}" if template else "")))
    try:
        yield make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        admin.dispose()


class Copies:
    """Copies of one template for one test each, made one ahead and dropped afterwards on a thread of their own.

    CREATE DATABASE ... TEMPLATE takes about 0.1 s and DROP DATABASE 0.05 s: made while the test before runs, and
    dropped while the next one does, neither is waited for. One thread does both in turn, on one connection.
    """

    def __init__(self, admin_url: str, template: str) -> None:
        self.admin_url, self.template = admin_url, template
        self._admin = admin_engine(admin_url)
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="postgres-copies")
        self._next: Future[str] | None = None

    @contextmanager
    def one(self) -> Iterator[str]:
        """A fresh copy's URL for the `with` block; the next copy is made meanwhile, and this one dropped after."""
        name = (self._next or self._thread.submit(self._create)).result()
        self._next = self._thread.submit(self._create)
        try:
            yield make_url(self.admin_url).set(database=name).render_as_string(hide_password=False)
        finally:
            self._thread.submit(self._drop, name)

    def close(self) -> None:
        """Drop the copy made ahead, wait for every drop, and close the connection."""
        if self._next is not None:
            made = self._next.exception() is None
            if made:
                self._thread.submit(self._drop, self._next.result())
        self._thread.shutdown(wait=True)
        self._admin.dispose()

    def _create(self) -> str:
        name = f"aftersales_test_{os.getpid()}_{next(_numbers)}"
        with self._admin.connect() as connection:
            connection.execute(text(f"CREATE DATABASE {name} TEMPLATE {self.template}"))
        return name

    def _drop(self, name: str) -> None:
        with self._admin.connect() as connection:
            connection.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))

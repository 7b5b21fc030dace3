"""`aftersales serve`: check settings, bind, prepare the database, then serve MCP over Streamable HTTP or stdio."""

import argparse
import logging
import os
import socket
import sys
from datetime import timedelta

import anyio
import uvicorn
from starlette.applications import Starlette

from aftersales.app import App
from aftersales.bootstrap import prepare
from aftersales.cli import affinity, port, workers
from aftersales.cli.banner import CLIENT_SNIPPET, announcement, mcp_url
from aftersales.cli.console import location, say
from aftersales.cli.failures import StartupError, bind_problem
from aftersales.cli.signals import sigterm_exits
from aftersales.clock import now
from aftersales.domain.callers import ALL_SCOPES, Caller
from aftersales.mcp.caller import acting_as
from aftersales.mcp.server import build_server
from aftersales.otel import setup as traces
from aftersales.security import tokens
from aftersales.security.issuer_keys import IssuerUnreachable
from aftersales.settings import Settings
from aftersales.web import heap, serving
from aftersales.web.app import create_web_app

BACKLOG = 2048  # uvicorn's default
log = logging.getLogger(__name__)


def add(serve: argparse.ArgumentParser) -> None:
    """Register the serve command."""
    serve.add_argument("--host", help="Interface to bind (default 127.0.0.1, or AFTERSALES_HOST).")
    serve.add_argument("--port", type=port, help="Port (default 8000, or AFTERSALES_PORT; 0 picks a free one).")
    serve.add_argument("--stdio", action="store_true", help="Serve one local client over stdin/stdout instead.")
    serve.add_argument(
        "--workers", type=int, help="Server processes sharing the port (default 1, or AFTERSALES_WORKERS)."
    )
    serve.add_argument(
        "--pin-cpus",
        action="store_true",
        default=None,  # absent: AFTERSALES_PIN_CPUS decides
        help="Pin each server process to one CPU, on a machine or cpuset kept for it (or AFTERSALES_PIN_CPUS).",
    )
    # Internal: how a worker of `serve --workers N` finds the socket its parent bound and its line to the parent,
    # and the CPU it pins itself to under --pin-cpus.
    serve.add_argument("--worker-fds", help=argparse.SUPPRESS)
    serve.add_argument("--worker-cpu", type=int, help=argparse.SUPPRESS)
    serve.set_defaults(run=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Serve until the client goes away or a signal stops us; the audit is flushed however serving ends."""
    chosen = (("host", args.host), ("port", args.port), ("workers", args.workers), ("pin_cpus", args.pin_cpus))
    settings = settings.model_copy(update={k: v for k, v in chosen if v is not None})
    if settings.workers < 1:
        raise StartupError(f"--workers {settings.workers} is not accepted: run at least 1 server process.")
    if args.stdio and settings.workers > 1:
        raise StartupError(
            f"--workers {settings.workers} cannot serve --stdio: a stdio client talks to one process. Drop --workers "
            "(or set AFTERSALES_WORKERS=1), or serve over HTTP."
        )
    if settings.pin_cpus or args.worker_cpu is not None:
        affinity.check_supported()
    logging.basicConfig(
        level=settings.log_level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s %(message)s"
    )
    # Before the server is built: with traces on, it describes each call on its span (docs/production.md, "Traces").
    # The parent of `--workers N` serves nothing, so only its workers export.
    if args.worker_fds or settings.workers == 1:
        traces.start()
    app = App(settings)
    with sigterm_exits():
        try:
            if args.worker_fds:
                return serve_worker(app, args.worker_fds, args.worker_cpu)
            return serve_stdio(app) if args.stdio else serve_http(app)
        finally:
            app.close()
            traces.stop()  # the spans still batched are sent


def serve_stdio(app: App) -> int:
    """One local client over stdin/stdout: every request runs as the configured stdio caller."""
    settings = app.settings
    _ = app.state_keys  # checked before anything touches the database
    _prepare(app)
    if settings.pin_cpus:
        _pin(affinity.allowed_cpus()[0])
    try:
        with acting_as(Caller(settings.stdio_caller, frozenset(ALL_SCOPES))):
            build_server(app).run("stdio")
    except SystemExit:
        # Stopped by SIGTERM while the host keeps the pipe open: the thread reading stdin stays blocked in read(),
        # and the interpreter would wait for it at exit. Write the audit, then leave at once.
        app.close()
        traces.stop()
        sys.stderr.flush()
        os._exit(0)
    return 0


def serve_http(app: App) -> int:
    """Streamable HTTP: settings and keys checked, port bound, database prepared, then the banner."""
    settings = app.settings
    keys = app.caller_keys  # keys and host settings are checked before anything touches the database
    web = create_web_app(app)
    reach_issuer(app)
    sock = listen(settings.host, settings.port)
    # Several workers each get a listening socket of their own now, before anything touches the database.
    listeners = spread(sock, settings.host, settings.workers) if settings.workers > 1 else [sock]
    allowed = affinity.allowed_cpus() if settings.pin_cpus else []
    # Worker i runs on the i-th allowed CPU, round the list again when there are more workers than CPUs.
    cpus = [allowed[slot % len(allowed)] for slot in range(settings.workers)] if allowed else []
    try:
        _prepare(app)
        port = listeners[0].getsockname()[1]
        url = mcp_url(settings.host, port)

        def announce() -> None:
            if settings.workers == 1:
                heap.settle()  # started: what is alive now lives as long as the process
            say(announcement(url, settings.workers, cpus))
            if (how := how_to_connect(settings, keys, url)) is not None:
                say(how)

        if settings.workers > 1:
            app.close()  # the parent only supervises: its connections and audit writer are not needed any more
            options = ["--host", settings.host, "--port", str(port), "--workers", str(settings.workers)]
            return workers.supervise(listeners, options, settings.workers, announce, cpus)
        if cpus:
            _pin(cpus[0])
        serving.Server(uvicorn_config(web, settings), announce).run(sockets=[sock])
    finally:
        for listener in listeners:
            listener.close()
    return 0


def how_to_connect(settings: Settings, keys: list[str], url: str) -> str | None:
    """What `serve` says after its banner: whose tokens it takes in OAuth mode, a ready token in development."""
    if settings.auth == "oauth":  # a token of this server's own would not open /mcp
        return f"aftersales: OAuth mode: access tokens of {settings.oauth_issuer} for {settings.oauth_resource}"
    if settings.env == "development":
        token = tokens.issue(keys, "support-bot", list(ALL_SCOPES), timedelta(days=30), now())
        return CLIENT_SNIPPET.format(url=url, token=token)
    return None


def reach_issuer(app: App) -> None:
    """In OAuth mode, read the issuer's metadata and keys now: an issuer that cannot be reached stops the start."""
    keys = app.issuer_keys
    if keys is None:
        return
    try:
        anyio.run(keys.load)  # its own event loop, before uvicorn's; the keys it reads stay cached for serving
    except IssuerUnreachable as problem:
        raise StartupError(
            f"{problem}, so no access token can be checked. Check AFTERSALES_OAUTH_ISSUER and that the authorization "
            "server is running and reachable from here."
        ) from None


def serve_worker(app: App, fds: str, cpu: int | None) -> int:
    """One of `serve --workers N`'s processes: the parent bound the port and prepared the database already."""
    if cpu is not None:
        _pin(cpu)
    sock, line = workers.worker_sockets(fds)
    workers.watch_parent(line)
    web = create_web_app(app)

    def ready() -> None:
        heap.settle()  # started: what is alive now lives as long as the process
        line.send(workers.READY)

    try:
        serving.Server(uvicorn_config(web, app.settings), ready).run(sockets=[sock])
    finally:
        sock.close()
    return 0


def uvicorn_config(web: Starlette, settings: Settings) -> uvicorn.Config:
    """uvicorn's settings for one server process."""
    return serving.config(web, log_level=settings.log_level.lower(), timeout_graceful_shutdown=20)


def spread(sock: socket.socket, host: str, count: int) -> list[socket.socket]:
    """The listening sockets of `count` workers: on Linux one each on `sock`'s port (SO_REUSEPORT), else `sock`."""
    # With one shared socket the worker that wakes first accepts every connection waiting, so a burst opened at once
    # (a client's pool, a load balancer's) can all land on one worker and stay there; with a socket each, the kernel
    # spreads new connections over them by a hash of their addresses (macOS's SO_REUSEPORT does not). `sock` claimed
    # the port, so a busy one failed in one line; the workers' sockets take it over at once, and should the port be
    # taken in that moment, the bind fails in the same one line, still before the database is touched.
    if not sys.platform.startswith("linux"):
        return [sock]
    port = sock.getsockname()[1]
    sock.close()
    bound: list[socket.socket] = []
    try:
        for _ in range(count):
            bound.append(listen(host, port, reuse_port=True))
    except BaseException:
        for listener in bound:
            listener.close()
        raise
    return bound


def listen(host: str, port: int, reuse_port: bool = False) -> socket.socket:
    """A socket listening on host:port now, so a bad host or a busy port fails before anything else happens."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as error:
        raise StartupError(
            f"AFTERSALES_HOST={host!r} is not an address of this machine ({error.strerror}); use an interface "
            "address such as 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)."
        ) from None
    sock = socket.socket(family, kind, proto)
    try:
        # A restart may reuse the port while old connections linger in TIME_WAIT; a live listener still refuses.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:  # one of several listeners on the port, each a worker's (see spread)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
        sock.listen(BACKLOG)
    except OSError as error:
        sock.close()
        raise StartupError(bind_problem(error, host, port)) from None
    return sock


def _prepare(app: App) -> None:
    """Migrate, and in development load the baseline into an empty database; say where and what."""
    settings = app.settings
    say(f"aftersales: {location(settings)}")
    report = prepare(app.engine, settings.seed_dir, seed_when_empty=settings.env == "development")
    logging.getLogger("alembic").setLevel(logging.WARNING)  # readiness probes would log a context line each
    say("aftersales: database ready" + (f", baseline loaded ({report.inserted['tickets']} tickets)" if report else ""))


def _pin(cpu: int) -> None:
    """Pin this process to `cpu`, and say so in the log."""
    affinity.pin(cpu)
    log.info("process %s pinned to CPU %s", os.getpid(), cpu)

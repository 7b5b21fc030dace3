"""A real authorization server for the tests: oidc-provider on Node 22, run by tests/e2e/ts/oauth/provider.mjs.

It issues RFC 9068 JWT access tokens for the RFC 8707 resource a client names (aud = that URL) with the scopes
tickets:read, tickets:write and worlds:admin, to a confidential machine client (client credentials), a
preregistered public client (authorization code + PKCE) and any client that registers itself (RFC 7591). Its
login and consent steps are HTML forms that `authorize` posts as a person would, without a browser.

`rotate_keys` puts a new signing key in front at the running server; `stop` and `start` take it down and bring it
back on the same port with the same keys, so its issuer URL never changes during a session.
"""

import json
import re
import secrets
import signal
import subprocess
import time
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin

import httpx

from tests.support import node
from tests.support.free_ports import free_port
from tests.support.processes import LoopbackProcess

SCRIPT = "oauth/provider.mjs"  # relative to tests/e2e/ts
SCOPES = ("tickets:read", "tickets:write", "worlds:admin")
START_TIMEOUT = 30  # seconds
STOP_TIMEOUT = 10  # seconds
MAX_STEPS = 12  # redirects and forms between the authorization request and the client's redirect URI


@dataclass(frozen=True)
class MachineClient:
    """A confidential client that gets tokens with the client-credentials grant."""

    client_id: str
    client_secret: str


@dataclass
class AuthorizationServer(LoopbackProcess):
    """oidc-provider as a child process on a fixed loopback port; files (keys, log) in `folder`."""

    LOG = "provider.log"

    folder: Path
    port: int = field(default_factory=free_port)
    machine: MachineClient = field(default_factory=lambda: MachineClient("aftersales-agent", secrets.token_urlsafe(24)))
    public_client_id: str = "aftersales-host"
    redirect_uri: str = "http://127.0.0.1:8765/callback"  # never opened: `authorize` stops at the redirect to it
    login: str = "casey"
    password: str = field(default_factory=lambda: secrets.token_urlsafe(12))
    process: subprocess.Popen[bytes] | None = None

    @property
    def issuer(self) -> str:
        return self.url

    def start(self) -> None:
        """Start the server and wait until its metadata answers."""
        given = {
            "port": self.port,
            "keys": str(self.folder / "keys.json"),
            "machine": {"client_id": self.machine.client_id, "client_secret": self.machine.client_secret},
            "public": {"client_id": self.public_client_id, "redirect_uri": self.redirect_uri},
            "account": {"login": self.login, "password": self.password},
        }
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [str(node.ensure_installed()), SCRIPT, json.dumps(given)],
                cwd=node.TS_DIR,
                stdout=log,
                stderr=log,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while not self.ready():
            if self.process.poll() is not None:
                raise RuntimeError(f"the authorization server exited: {self.log.read_text()[-2000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the authorization server did not answer in {START_TIMEOUT} seconds")
            time.sleep(0.05)

    def ready(self) -> bool:
        """Whether its authorization server metadata answers 200 within a second."""
        try:
            metadata = httpx.get(f"{self.issuer}/.well-known/oauth-authorization-server", timeout=1)
        except httpx.HTTPError:
            return False
        return metadata.status_code == 200

    def stop(self) -> None:
        """Stop the server (its keys file stays, so `start` brings back the same keys)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    @contextmanager
    def down(self) -> Iterator[None]:
        """The server is unreachable inside the block and serves again after it."""
        self.stop()
        try:
            yield
        finally:
            self.start()

    def rotate_keys(self, keep_old: bool = True) -> str:
        """Sign with a new key from now on, keeping the old ones published or dropping them; the new key id."""
        answer = httpx.post(f"{self.issuer}/admin/rotate", json={"keep_old": keep_old}, timeout=10)
        answer.raise_for_status()
        return str(answer.json()["kid"])

    def key_ids(self) -> list[str]:
        """The key ids the server publishes, the signing key first."""
        jwks = httpx.get(f"{self.issuer}/jwks", timeout=10).raise_for_status().json()
        return [key["kid"] for key in jwks["keys"]]

    def client_credentials_token(self, resource: str, scope: str = " ".join(SCOPES)) -> str:
        """An access token for `resource` with `scope`, as the machine client gets one."""
        answer = httpx.post(
            f"{self.issuer}/token",
            data={"grant_type": "client_credentials", "resource": resource, "scope": scope},
            auth=(self.machine.client_id, self.machine.client_secret),
            timeout=10,
        )
        if answer.status_code != 200:
            raise AssertionError(f"the token request failed ({answer.status_code}): {answer.text}")
        return str(answer.json()["access_token"])

    def authorize(self, authorization_url: str, allowing: Collection[str] | None = None) -> str:
        """Sign in and allow what `authorization_url` asks for (only the scopes in `allowing`, when given), as the
        person would; the client's redirect URL.

        Follows the server's redirects and posts each form it shows (the login form with this account's
        credentials, then the consent form with its scope boxes) until it redirects away from the issuer.
        """
        with httpx.Client(timeout=10) as browser:
            answer = browser.get(authorization_url)
            for _ in range(MAX_STEPS):
                if answer.is_redirect:
                    target = urljoin(str(answer.url), answer.headers["location"])
                    if not target.startswith(f"{self.issuer}/"):
                        return target
                    answer = browser.get(target)
                elif answer.status_code == 200 and "<form" in answer.text:
                    action = urljoin(str(answer.url), _form_action(answer.text))
                    answer = browser.post(action, data=self._fill(answer.text, allowing))
                else:
                    raise AssertionError(f"the authorization server answered {answer.status_code}: {answer.text[:500]}")
        raise AssertionError(f"no redirect to the client after {MAX_STEPS} steps")

    def _fill(self, form: str, allowing: Collection[str] | None) -> dict[str, str | list[str]]:
        if 'name="login"' in form:
            return {"login": self.login, "password": self.password}
        boxes = re.findall(r'name="scope" value="([^"]+)" checked', form)
        return {"scope": [scope for scope in boxes if allowing is None or scope in allowing]}


def _form_action(page: str) -> str:
    found = re.search(r'<form method="post" action="([^"]+)"', page)
    if found is None:
        raise AssertionError(f"no form on the page: {page[:500]}")
    return found.group(1)


def started(folder: Path) -> AuthorizationServer:
    """A running authorization server keeping its files in `folder`."""
    server = AuthorizationServer(folder)
    server.start()
    return server

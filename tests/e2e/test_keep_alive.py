"""Keep-alive: the server never closes an idle connection before a client may still reuse it."""

import socket
import time
from urllib.parse import urlsplit

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from aftersales.cli.serve import uvicorn_config
from aftersales.settings import Settings
from tests.support.web import serving

pytestmark = pytest.mark.http
CLIENT_EXPIRY = httpx2.Limits().keepalive_expiry or 0.0  # how long httpx (the SDK's client) reuses an idle connection
REQUEST = b"GET / HTTP/1.1\r\nHost: test\r\nConnection: keep-alive\r\n\r\n"


def ok(_request) -> PlainTextResponse:
    """A response with nothing to wait for."""
    return PlainTextResponse("ok")


def exchange(connection: socket.socket) -> bytes:
    """Send one request on `connection` and read its response (empty when the server had closed it)."""
    connection.sendall(REQUEST)
    answer = b""
    while not answer.endswith(b"ok"):
        chunk = connection.recv(4096)
        if not chunk:
            break
        answer += chunk
    return answer


def test_a_connection_idle_past_the_clients_own_expiry_still_serves_the_next_request():
    # uvicorn closes idle connections after 5 s, the very moment httpx reuses them: under load a request sent then
    # met a closed socket ("Server disconnected without sending a response"), and a POST cannot be repeated.
    with serving(Starlette(routes=[Route("/", ok)])) as url:
        address = urlsplit(url)
        with socket.create_connection((address.hostname, address.port), timeout=10) as connection:
            assert exchange(connection).startswith(b"HTTP/1.1 200")
            time.sleep(CLIENT_EXPIRY + 1)
            assert exchange(connection).startswith(b"HTTP/1.1 200")


def test_aftersales_serve_keeps_idle_connections_longer_than_clients_and_load_balancers_do(tmp_path):
    config = uvicorn_config(Starlette(), Settings(data_dir=tmp_path))
    assert config.timeout_keep_alive > max(CLIENT_EXPIRY, 60)  # 60 s: a common load balancer idle timeout

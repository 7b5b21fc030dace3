"""How a worker of `serve --workers N` takes over the socket its parent bound."""

import os
import socket

from aftersales.cli.serve import listen
from aftersales.cli.workers import READY, worker_sockets


def test_a_worker_gets_the_parents_socket_as_tcp_so_asyncio_sets_nodelay_on_its_connections():
    # asyncio sets TCP_NODELAY only on sockets whose proto is IPPROTO_TCP; one made with proto 0 (as uvicorn's own
    # bind for several workers does) leaves Nagle on, and replies wait ~40 ms for delayed ACKs.
    parent = listen("127.0.0.1", 0)
    ours, theirs = socket.socketpair()
    with parent, ours, theirs:
        sock, line = worker_sockets(f"{os.dup(parent.fileno())},{os.dup(theirs.fileno())}")
        with sock, line:
            assert sock.proto == socket.IPPROTO_TCP and sock.type == socket.SOCK_STREAM
            assert sock.getsockname() == parent.getsockname()
            line.send(READY)
            assert ours.recv(1) == READY

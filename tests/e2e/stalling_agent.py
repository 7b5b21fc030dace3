"""An agent in a child process that tells the test on a socket that its trial started, then waits there for ever.

The test learns of the start from the line, and of the agent's end from the socket closing: no sleep either side.
"""

import socket
import sys

with socket.create_connection(("127.0.0.1", int(sys.argv[1]))) as told:
    told.sendall(b"started\n")
    told.recv(1)  # the test never sends: this returns only when the process is killed (or the test hangs up)

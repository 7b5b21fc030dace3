"""One TLS context for the harness's HTTP clients: building the default one loads the CA store, about 50 ms a time."""

import ssl
from functools import cache


@cache
def verified() -> ssl.SSLContext:
    """The default, verifying TLS context, made once per process (a client per replay or message made its own)."""
    return ssl.create_default_context()

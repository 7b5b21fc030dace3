"""Port numbers as the settings and the command line accept them."""

HIGHEST = 65535


def checked_port(port: int) -> int:
    """`port` when a socket can listen on it (0: any free one); otherwise a ValueError that says the range."""
    if not 0 <= port <= HIGHEST:
        raise ValueError(f"a port is 0 (any free one) to {HIGHEST}")
    return port

"""The command line: `aftersales serve | db | seed | token | stats | world | tasks | eval | demo`, a module each.

Each command's module defines its arguments (`add`) and runs it; main imports only the module of the command given.
"""

import argparse

from aftersales.port_numbers import checked_port


def port(text: str) -> int:
    """A --port value: a whole number a socket can listen on, or argparse's error naming the option."""
    try:
        return checked_port(int(text))
    except ValueError as error:  # int() says "invalid literal": tell the rule instead
        rule = error if text.strip().lstrip("-").isdigit() else "a port is a whole number"
        raise argparse.ArgumentTypeError(f"{text!r} is not accepted: {rule}") from None

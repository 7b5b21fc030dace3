"""The command line: `aftersales serve | db | seed | token | stats | demo`, one module per command."""

import argparse
from typing import TypeAlias

from aftersales.ports import checked_port

# Where each command module registers its sub-command. argparse's class is generic only to a type checker
# (subscripting it at run time fails), so the alias is a string.
Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def port(text: str) -> int:
    """A --port value: a whole number a socket can listen on, or argparse's error naming the option."""
    try:
        return checked_port(int(text))
    except ValueError as error:  # int() says "invalid literal": tell the rule instead
        rule = error if text.strip().lstrip("-").isdigit() else "a port is a whole number"
        raise argparse.ArgumentTypeError(f"{text!r} is not accepted: {rule}") from None

"""The command line: `aftersales serve | db | seed | token | stats | demo`, one module per command."""

import argparse
from typing import TypeAlias

# Where each command module registers its sub-command. argparse's class is generic only to a type checker
# (subscripting it at run time fails), so the alias is a string.
Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

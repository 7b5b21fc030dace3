"""`python examples/llm_agent` (by path, as the harness runs agents) or `python -m examples.llm_agent`."""

import sys
from pathlib import Path

if not __package__:  # run by path: import the package by its full name, from the repository's root
    sys.path[0] = str(Path(__file__).resolve().parents[2])

from examples.llm_agent.cli import main

sys.exit(main())

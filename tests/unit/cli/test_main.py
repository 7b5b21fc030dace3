"""`aftersales --version` and `--help` start without importing the server, the database layer, the SDK or pydantic."""

import json
import subprocess
import sys

import pytest

HEAVY = ("mcp", "sqlalchemy", "starlette", "uvicorn", "alembic", "pydantic", "pydantic_settings", "aftersales.app")
# Runs main as the console script does, then reports which of HEAVY got imported (argparse exits the process).
PROBE = f"""
import atexit, json, sys
atexit.register(lambda: print(json.dumps([name for name in {HEAVY!r} if name in sys.modules]), file=sys.stderr))
from aftersales.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def imported_by(*args: str) -> list[str]:
    """The heavy modules a fresh interpreter imported to run `aftersales ARGS`."""
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=60)
    assert done.returncode in (0, 2), done.stderr  # no command at all is a usage error
    return json.loads(done.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("args", [["--version"], ["--help"], []])
def test_version_help_and_a_missing_command_import_none_of_the_heavy_modules(args):
    assert imported_by(*args) == []


def test_the_probe_sees_the_heavy_modules_a_command_that_runs_imports():
    assert {"sqlalchemy", "pydantic"} <= set(imported_by("tasks", "list"))

"""A temporary directory of the test session's own, and what the project left in it when the session ends.

Every process of the session (xdist workers, `aftersales` subprocesses, pytester's inner runs) inherits TMPDIR, so
whatever the project makes with `tempfile` lands here, and no other session running at the same time can put
anything in it or take anything out. pytest's own folders (tmp_path, kept for a few sessions) stay where they were.
"""

import os
import shutil
import tempfile
from pathlib import Path

PREFIX = "aftersales-"  # every temporary folder and file the project makes is named so


def make_private() -> tuple[Path, str]:
    """A new temporary directory for this session, made the process's and its children's; and the one it replaces."""
    shared = tempfile.gettempdir()
    folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}test-session-"))
    folder.chmod(0o755)  # the throwaway PostgreSQL server runs as its own user under a folder made here
    os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", shared)
    os.environ["TMPDIR"] = str(folder)
    tempfile.tempdir = str(folder)
    return folder, shared


def left_behind(folder: Path) -> list[str]:
    """The project's temporary folders and files still in `folder`."""
    return sorted(entry.name for entry in folder.iterdir() if entry.name.startswith(PREFIX))


def remove(folder: Path, shared: str) -> None:
    """Remove the session's directory, whatever is in it, and hand back the shared one."""
    shutil.rmtree(folder, ignore_errors=True)
    os.environ["TMPDIR"] = shared
    tempfile.tempdir = shared

"""The session's own temporary directory, and the check at its end that the project left nothing in it."""

import os
import tempfile
from pathlib import Path

import pytest

from tests.support import leftovers


def test_what_the_project_leaves_in_the_sessions_directory_is_found_and_another_sessions_folders_are_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    shared = tmp_path / "shared"
    shared.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    monkeypatch.setenv("TMPDIR", str(shared))
    monkeypatch.setenv("PYTEST_DEBUG_TEMPROOT", str(shared))
    folder, before = leftovers.make_private()
    assert (before, folder.parent, os.environ["TMPDIR"]) == (str(shared), shared, str(folder))
    left = Path(tempfile.mkdtemp(prefix="aftersales-eval-"))  # a run that did not clean up
    tempfile.mkdtemp(prefix="aftersales-eval-", dir=shared)  # another session's, running at the same time
    (folder / "pytest-of-someone").mkdir()  # not the project's
    assert leftovers.left_behind(folder) == [left.name]
    leftovers.remove(folder, before)
    assert not folder.exists() and tempfile.gettempdir() == str(shared) == os.environ["TMPDIR"]
